import { sql, type Kysely } from 'kysely';
import {
  enableTenantRls,
  findRowLevelSecurityGaps,
  migrateToLatest,
  withSystemScope,
  withTenant,
} from '@crm/shared/db';
import { addMember, createTenant, createUser, isolatedTestDb, testDb } from '@crm/shared/testing';

const database = testDb();
const { db } = database;

afterAll(() => database.close());

describe('withTenant (row-level security)', () => {
  let tenantA: { id: string };
  let tenantB: { id: string };
  let userA: { id: string };
  let userB: { id: string };

  beforeAll(async () => {
    tenantA = await createTenant(database, 'Tenant A');
    tenantB = await createTenant(database, 'Tenant B');
    userA = await createUser(database);
    userB = await createUser(database);
    await addMember(database, tenantA.id, userA.id, 'owner');
    await addMember(database, tenantB.id, userB.id, 'owner');
  });

  it('runs on a superuser connection, which by itself sees every tenant', async () => {
    const { rows } = await sql<{
      rolsuper: boolean;
    }>`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`.execute(db);
    expect(rows[0].rolsuper).toBe(true);
    const all = await db
      .selectFrom('tenant_users')
      .select('tenant_id')
      .where('tenant_id', 'in', [tenantA.id, tenantB.id])
      .execute();
    expect(all).toHaveLength(2);
  });

  it('returns only the scoped tenant rows from a query without any tenant filter', async () => {
    const rows = await withTenant(db, tenantA.id, (trx) =>
      trx.selectFrom('tenant_users').selectAll().execute(),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.tenant_id === tenantA.id)).toBe(true);
    expect(rows.map((r) => r.user_id)).toContain(userA.id);
    expect(rows.map((r) => r.user_id)).not.toContain(userB.id);
  });

  it('shows the scoped tenant its own tenants row only', async () => {
    const rows = await withTenant(db, tenantA.id, (trx) =>
      trx.selectFrom('tenants').select('id').execute(),
    );
    expect(rows).toEqual([{ id: tenantA.id }]);
  });

  it('shows users of the scoped tenant only, and never their password hash', async () => {
    const users = await withTenant(db, tenantA.id, (trx) =>
      trx.selectFrom('users').select(['id', 'email']).execute(),
    );
    expect(users.map((u) => u.id)).toEqual([userA.id]);
    await expect(
      withTenant(db, tenantA.id, (trx) =>
        trx.selectFrom('users').select('password_hash').execute(),
      ),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('cannot insert a row for another tenant, and writes nothing', async () => {
    const intruder = await createUser(database);
    await expect(
      withTenant(db, tenantA.id, (trx) =>
        trx
          .insertInto('tenant_users')
          .values({ tenant_id: tenantB.id, user_id: intruder.id, role: 'owner', status: 'active' })
          .execute(),
      ),
    ).rejects.toMatchObject({ code: '42501' });
    const written = await db
      .selectFrom('tenant_users')
      .select('user_id')
      .where('user_id', '=', intruder.id)
      .execute();
    expect(written).toEqual([]);
  });

  it('cannot update or delete another tenant rows (they are invisible)', async () => {
    const updated = await withTenant(db, tenantA.id, (trx) =>
      trx
        .updateTable('tenant_users')
        .set({ role: 'viewer' })
        .where('tenant_id', '=', tenantB.id)
        .executeTakeFirst(),
    );
    expect(Number(updated.numUpdatedRows)).toBe(0);
    const deleted = await withTenant(db, tenantA.id, (trx) =>
      trx.deleteFrom('tenant_users').where('tenant_id', '=', tenantB.id).executeTakeFirst(),
    );
    expect(Number(deleted.numDeletedRows)).toBe(0);
    const stillThere = await db
      .selectFrom('tenant_users')
      .select('role')
      .where('tenant_id', '=', tenantB.id)
      .execute();
    expect(stillThere).toEqual([{ role: 'owner' }]);
  });

  it('leaves no role or tenant behind on the pooled connection after the transaction', async () => {
    await withTenant(db, tenantA.id, async () => undefined);
    // Every connection of the pool: none may still be the tenant role or carry a tenant.
    const checks = await Promise.all(
      Array.from({ length: 5 }, () =>
        sql<{
          role: string;
          tenant: string | null;
        }>`SELECT current_user AS role, app_current_tenant()::text AS tenant`.execute(db),
      ),
    );
    for (const { rows } of checks) {
      expect(rows[0].role).not.toBe('crm_app');
      expect(rows[0].tenant).toBeNull();
    }
  });

  it('sees nothing at all as the tenant role without a tenant set', async () => {
    const rows = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL ROLE crm_app`.execute(trx);
      return trx.selectFrom('tenant_users').selectAll().execute();
    });
    expect(rows).toEqual([]);
  });

  it('rejects a tenant id that is not a uuid with a validation error', async () => {
    await expect(withTenant(db, "x'; DROP TABLE tenants; --", async () => 1)).rejects.toMatchObject(
      {
        status: 400,
        code: 'VALIDATION_ERROR',
      },
    );
  });

  it('lets the system scope read across tenants (the named cross-tenant lookups)', async () => {
    const rows = await withSystemScope(db, (trx) =>
      trx
        .selectFrom('tenant_users')
        .select('tenant_id')
        .where('tenant_id', 'in', [tenantA.id, tenantB.id])
        .execute(),
    );
    expect(new Set(rows.map((r) => r.tenant_id))).toEqual(new Set([tenantA.id, tenantB.id]));
  });
});

// On a database of their own: other test files create throwaway tables with a tenant_id column
// (a trigger's counter) in the shared one, which the row-level security check would report.
describe('migrations', () => {
  let own: Awaited<ReturnType<typeof isolatedTestDb>>;
  let db: typeof own.db;
  beforeAll(async () => {
    own = await isolatedTestDb();
    db = own.db;
  });
  afterAll(() => own.close());

  it('are idempotent: a second run applies nothing', async () => {
    const again = await migrateToLatest(db);
    expect(again.applied).toEqual([]);
  });

  it('leave every table with a tenant_id column under forced row-level security', async () => {
    expect(await findRowLevelSecurityGaps(db)).toEqual([]);
  });

  it('make the check fail for a tenant table created without row-level security', async () => {
    await sql`CREATE TABLE rls_probe_unprotected (id int, tenant_id uuid)`.execute(db);
    try {
      expect(await findRowLevelSecurityGaps(db)).toEqual([
        { table: 'rls_probe_unprotected', problem: 'row level security is not enabled' },
        { table: 'rls_probe_unprotected', problem: 'no tenant_isolation policy' },
      ]);
      await expect(migrateToLatest(db)).rejects.toThrow(
        /rls_probe_unprotected: row level security is not enabled/,
      );
    } finally {
      await sql`DROP TABLE rls_probe_unprotected`.execute(db);
    }
  });

  it('make the check fail for a partition of a tenant table without row-level security, in whatever schema', async () => {
    // A database of its own: the partitioned probe must not show up in other files' checks.
    const own = await isolatedTestDb();
    try {
      await sql`CREATE TABLE rls_probe_parent (id int, tenant_id uuid)
        PARTITION BY RANGE (id)`.execute(own.db);
      await enableTenantRls(own.db as Kysely<unknown>, 'rls_probe_parent');
      await sql`CREATE SCHEMA rls_probe_parts`.execute(own.db);
      await sql`CREATE TABLE rls_probe_parts.rls_probe_first PARTITION OF rls_probe_parent
        FOR VALUES FROM (0) TO (10)`.execute(own.db);
      expect(await findRowLevelSecurityGaps(own.db)).toEqual([
        { table: 'rls_probe_first', problem: 'row level security is not enabled' },
        { table: 'rls_probe_first', problem: 'no tenant_isolation policy' },
      ]);
    } finally {
      await own.close();
    }
  });

  it('make the check fail for a view of tenant rows without the tenant condition', async () => {
    await sql`CREATE VIEW rls_probe_view AS SELECT id, tenant_id FROM crm_leads`.execute(db);
    try {
      expect(await findRowLevelSecurityGaps(db)).toEqual([
        { table: 'rls_probe_view', problem: 'view without the tenant condition' },
      ]);
    } finally {
      await sql`DROP VIEW rls_probe_view`.execute(db);
    }
  });
});
