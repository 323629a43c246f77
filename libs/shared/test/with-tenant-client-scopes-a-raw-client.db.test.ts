import { TENANT_ROLE, withTenant, withTenantClient } from '@crm/shared/db';
import { createTenant, testDb } from '@crm/shared/testing';

const database = testDb();

afterAll(() => database.close());

/*
 * withTenantClient hands out the pool's client itself (for a COPY) in a transaction scoped
 * exactly as withTenant's: the tenant role with app.tenant_id set, so row-level security
 * filters a query that names no tenant; a failure rolls back and the client is not reused.
 */
describe('withTenantClient', () => {
  let tenantA: { id: string };
  let tenantB: { id: string };

  beforeAll(async () => {
    tenantA = await createTenant(database, 'Raw client A');
    tenantB = await createTenant(database, 'Raw client B');
    for (const tenant of [tenantA, tenantB])
      await withTenant(database.db, tenant.id, (trx) =>
        trx
          .insertInto('crm_leads')
          .values({ tenant_id: tenant.id, email: `raw-${tenant.id}@client.test` })
          .execute(),
      );
  });

  it('runs as the tenant role with app.tenant_id set: a query without a tenant filter sees one tenant', async () => {
    const seen = await withTenantClient(database.pool, tenantA.id, async (client) => {
      const who = await client.query<{ role: string; tenant: string }>(
        `SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant`,
      );
      const leads = await client.query<{ tenant_id: string }>(
        `SELECT DISTINCT tenant_id FROM crm_leads`,
      );
      return { who: who.rows[0], tenants: leads.rows.map((r) => r.tenant_id) };
    });
    expect(seen).toEqual({ who: { role: TENANT_ROLE, tenant: tenantA.id }, tenants: [tenantA.id] });
  });

  it('commits what fn wrote when it succeeds', async () => {
    await withTenantClient(database.pool, tenantB.id, (client) =>
      client.query(`INSERT INTO crm_leads (tenant_id, email) VALUES ($1, 'kept@client.test')`, [
        tenantB.id,
      ]),
    );
    const rows = await database.db
      .selectFrom('crm_leads')
      .select('email')
      .where('email', '=', 'kept@client.test')
      .execute();
    expect(rows).toEqual([{ email: 'kept@client.test' }]);
  });

  it('rolls back when fn fails and rethrows its error; the client goes back to no one', async () => {
    const failure = new Error('half way');
    let used: unknown;
    await expect(
      withTenantClient(database.pool, tenantB.id, async (client) => {
        used = client;
        await client.query(
          `INSERT INTO crm_leads (tenant_id, email) VALUES ($1, 'dropped@client.test')`,
          [tenantB.id],
        );
        throw failure;
      }),
    ).rejects.toBe(failure);
    const rows = await database.db
      .selectFrom('crm_leads')
      .select('email')
      .where('email', '=', 'dropped@client.test')
      .execute();
    expect(rows).toEqual([]);
    const next = await database.pool.connect();
    try {
      expect(next).not.toBe(used);
    } finally {
      next.release();
    }
  });

  it('refuses a tenant id that is not a uuid before touching the pool', async () => {
    await expect(
      withTenantClient(database.pool, "x'; DROP TABLE crm_leads; --", async () => 'ran'),
    ).rejects.toMatchObject({ status: 400 });
  });
});
