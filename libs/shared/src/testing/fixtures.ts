import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../db/create-db';
import { dropDatabase, ensureDatabase, withDatabase } from '../db/database-url';
import { withSystemScope } from '../db/tenant-scope';
import type { Role } from '../identity/identity-token';
import type { MembershipStatus } from '../db/schema';

/** A pool on the database the jest global setup made for this run. */
export function testDb(): Db {
  const url = process.env.DATABASE_URL;
  if (!url)
    throw new Error('DATABASE_URL is not set: run tests through `npm test` (jest global setup)');
  return createDb({ connectionString: url, maxConnections: 5, applicationName: 'jest' });
}

/**
 * A database of this test file's own, cloned from the migrated template: for tests that run
 * an outbox relay, which publishes every pending row it can see. close() drops it.
 */
export async function isolatedTestDb(): Promise<Db & { url: string }> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!adminUrl || !template) throw new Error('run tests through `npm test` (jest global setup)');
  const name = `${template.replace(/_tpl$/, '')}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
  await ensureDatabase(adminUrl, name, template);
  const database = createDb({
    connectionString: withDatabase(adminUrl, name),
    maxConnections: 5,
    applicationName: 'jest',
  });
  return {
    ...database,
    // For services started as processes on this database.
    url: withDatabase(adminUrl, name),
    close: async () => {
      await database.close();
      await dropDatabase(adminUrl, name);
    },
  };
}

/** A tenant with a unique slug, so test files never collide. */
export async function createTenant(
  db: Db,
  name = 'Test tenant',
): Promise<{ id: string; slug: string }> {
  const slug = `t-${randomUUID().slice(0, 12)}`;
  return withSystemScope(db.db, (trx) =>
    trx
      .insertInto('tenants')
      .values({ slug, name })
      .returning(['id', 'slug'])
      .executeTakeFirstOrThrow(),
  );
}

export async function createUser(
  db: Db,
  email = `${randomUUID()}@example.test`,
): Promise<{ id: string; email: string }> {
  return withSystemScope(db.db, (trx) =>
    trx
      .insertInto('users')
      .values({ email: email.toLowerCase(), password_hash: 'not-a-real-hash', name: 'Test user' })
      .returning(['id', 'email'])
      .executeTakeFirstOrThrow(),
  );
}

export async function addMember(
  db: Db,
  tenantId: string,
  userId: string,
  role: Role = 'member',
  status: MembershipStatus = 'active',
): Promise<void> {
  await withSystemScope(db.db, (trx) =>
    trx
      .insertInto('tenant_users')
      .values({ tenant_id: tenantId, user_id: userId, role, status })
      .execute(),
  );
}
