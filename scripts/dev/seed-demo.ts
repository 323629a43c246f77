import type { Kysely } from 'kysely';
import { withSystemScope, type Database } from '../../libs/shared/src/db';
import { hashPassword } from '../../libs/shared/src/crypto';

export interface Demo {
  tenant: { id: string; slug: string; name: string };
  user: { id: string; email: string };
  password: string;
}

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_TENANT_SLUG = 'demo';

/**
 * The demo tenant and its owner, created once: a second start finds them and changes nothing
 * (the password is only set when the user is first created).
 */
export async function seedDemo(db: Kysely<Database>, password: string): Promise<Demo> {
  return withSystemScope(db, async (trx) => {
    await trx
      .insertInto('tenants')
      .values({ slug: DEMO_TENANT_SLUG, name: 'Demo Company' })
      .onConflict((oc) => oc.column('slug').doNothing())
      .execute();
    const tenant = await trx
      .selectFrom('tenants')
      .select(['id', 'slug', 'name'])
      .where('slug', '=', DEMO_TENANT_SLUG)
      .executeTakeFirstOrThrow();
    let user = await trx
      .selectFrom('users')
      .select(['id', 'email'])
      .where('email', '=', DEMO_EMAIL)
      .executeTakeFirst();
    if (!user) {
      user = await trx
        .insertInto('users')
        .values({
          email: DEMO_EMAIL,
          name: 'Demo User',
          password_hash: await hashPassword(password),
        })
        .returning(['id', 'email'])
        .executeTakeFirstOrThrow();
    }
    await trx
      .insertInto('tenant_users')
      .values({ tenant_id: tenant.id, user_id: user.id, role: 'owner', status: 'active' })
      .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doNothing())
      .execute();
    return { tenant, user, password };
  });
}
