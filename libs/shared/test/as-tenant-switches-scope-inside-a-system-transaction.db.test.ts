import { sql } from 'kysely';
import { asTenant, SYSTEM_ROLE, TENANT_ROLE, withSystemScope } from '@crm/shared/db';
import { addMember, createTenant, createUser, testDb } from '@crm/shared/testing';

const database = testDb();
const { db } = database;

afterAll(() => database.close());

async function whoAmI(trx: Parameters<Parameters<typeof withSystemScope>[1]>[0]) {
  const { rows } = await sql<{ role: string; tenant: string | null }>`
    SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant
  `.execute(trx);
  return rows[0];
}

/*
 * asTenant is the inbound ledger's unit of work: one system-scope transaction does the named
 * cross-tenant lookups, switches to one tenant for its writes under row-level security, and
 * comes back, all committed or rolled back together.
 */
describe('asTenant inside withSystemScope', () => {
  let tenantA: { id: string };
  let tenantB: { id: string };

  beforeAll(async () => {
    tenantA = await createTenant(database, 'As-tenant A');
    tenantB = await createTenant(database, 'As-tenant B');
    const user = await createUser(database);
    await addMember(database, tenantA.id, user.id, 'owner');
    await addMember(database, tenantB.id, user.id, 'owner');
  });

  it('runs fn as the tenant role seeing only that tenant, then returns to the system role', async () => {
    const seen = await withSystemScope(db, async (trx) => {
      const before = await whoAmI(trx);
      const inside = await asTenant(trx, tenantA.id, async (tenantTrx) => ({
        who: await whoAmI(tenantTrx),
        tenants: (await tenantTrx.selectFrom('tenant_users').select('tenant_id').execute()).map(
          (row) => row.tenant_id,
        ),
      }));
      const after = await whoAmI(trx);
      const all = await trx
        .selectFrom('tenant_users')
        .select('tenant_id')
        .where('tenant_id', 'in', [tenantA.id, tenantB.id])
        .execute();
      return { before, inside, after, all: all.length };
    });
    expect(seen.before.role).toBe(SYSTEM_ROLE);
    expect(seen.inside.who).toEqual({ role: TENANT_ROLE, tenant: tenantA.id });
    expect(new Set(seen.inside.tenants)).toEqual(new Set([tenantA.id]));
    expect(seen.after.role).toBe(SYSTEM_ROLE);
    expect(seen.all).toBe(2);
  });

  it("refuses a write for another tenant, and the whole transaction's writes roll back", async () => {
    const intruder = await createUser(database);
    await expect(
      withSystemScope(db, async (trx) => {
        await asTenant(trx, tenantA.id, (tenantTrx) =>
          tenantTrx
            .insertInto('tenant_users')
            .values({
              tenant_id: tenantA.id,
              user_id: intruder.id,
              role: 'member',
              status: 'active',
            })
            .execute(),
        );
        await asTenant(trx, tenantA.id, (tenantTrx) =>
          tenantTrx
            .insertInto('tenant_users')
            .values({
              tenant_id: tenantB.id,
              user_id: intruder.id,
              role: 'owner',
              status: 'active',
            })
            .execute(),
        );
      }),
    ).rejects.toMatchObject({ code: '42501' });
    const written = await db
      .selectFrom('tenant_users')
      .select('tenant_id')
      .where('user_id', '=', intruder.id)
      .execute();
    expect(written).toEqual([]);
  });
});
