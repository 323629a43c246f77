import type { Trx } from '@crm/shared/db';

/** What a sign-up writes: the user, their tenant and the owner membership joining them. */
export interface AccountRows {
  email: string;
  passwordHash: string;
  name: string | null;
  tenantSlug: string;
  tenantName: string;
}

/**
 * Inserts the user, the tenant and an active `owner` membership. Run it in one (system-scope)
 * transaction: the three rows exist together or not at all. A taken email or slug fails with
 * Postgres's unique violation (users_email_unique, tenants_slug_key) for the caller to judge.
 */
export async function insertAccount(trx: Trx, rows: AccountRows) {
  const user = await trx
    .insertInto('users')
    .values({ email: rows.email, password_hash: rows.passwordHash, name: rows.name })
    .returning(['id', 'email', 'name'])
    .executeTakeFirstOrThrow();
  const tenant = await trx
    .insertInto('tenants')
    .values({ slug: rows.tenantSlug, name: rows.tenantName })
    .returning(['id', 'slug', 'name', 'plan'])
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('tenant_users')
    .values({ tenant_id: tenant.id, user_id: user.id, role: 'owner', status: 'active' })
    .execute();
  return { user, tenant };
}
