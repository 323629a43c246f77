import { sql } from 'kysely';
import { withTenant } from '@crm/shared/db';
import { createTenant, roundTripsOf, testDb } from '@crm/shared/testing';

/*
 * The platform's Kysely dialect sends BEGIN in front of a transaction's first statement (one
 * round trip less per transaction). These pin what that must not change: transactions are
 * still transactions, results still come back, and a rollback still rolls back.
 */
const database = testDb();
const { db, pool } = database;
afterAll(() => database.close());

const statementsOf = (fn: () => Promise<unknown>) => roundTripsOf(pool, fn);

it('withTenant costs three round trips for one query: BEGIN and the settings go together', async () => {
  const tenant = await createTenant(database);
  const sent = await statementsOf(() =>
    withTenant(db, tenant.id, (trx) => trx.selectFrom('tenants').select('id').execute()),
  );
  expect(sent).toHaveLength(3);
  expect(sent[0]).toMatch(/^begin; SET LOCAL ROLE crm_app; SET LOCAL app\.tenant_id = /);
  expect(sent[1]).toMatch(/^select "id" from "tenants"/);
  expect(sent[2]).toBe('commit');
});

it('a first statement without parameters still returns its rows', async () => {
  const rows = await db
    .transaction()
    .execute(async (trx) => (await sql.raw<{ n: number }>('select 42 as n').execute(trx)).rows);
  expect(rows).toEqual([{ n: 42 }]);
});

it('a first statement with parameters gets its own BEGIN: later statements see its LOCAL setting', async () => {
  const seen = await db.transaction().execute(async (trx) => {
    await sql`select set_config('app.probe', ${'inside'}, true)`.execute(trx);
    return (await sql<{ v: string }>`select current_setting('app.probe', true) as v`.execute(trx))
      .rows[0].v;
  });
  expect(seen).toBe('inside');
  // LOCAL: gone after the transaction, on the same pooled connection or any other.
  const after = await sql<{
    v: string | null;
  }>`select current_setting('app.probe', true) as v`.execute(db);
  expect(after.rows[0].v ?? '').toBe('');
});

it('a failing transaction rolls back what its first, folded statement wrote', async () => {
  const slug = `folded-${Date.now()}`;
  await expect(
    db.transaction().execute(async (trx) => {
      await sql
        .raw(`insert into tenants (slug, name) values ('${slug}', 'Folded begin')`)
        .execute(trx);
      throw new Error('changed my mind');
    }),
  ).rejects.toThrow('changed my mind');
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from tenants where slug = ${slug}`.execute(db);
  expect(rows[0].n).toBe('0');
});

it('a transaction that ran nothing sends nothing and leaves its connection usable', async () => {
  const sent = await statementsOf(() =>
    db
      .transaction()
      .execute(async () => {
        throw new Error('before any statement');
      })
      .catch(() => undefined),
  );
  expect(sent).toEqual([]);
  await expect(sql`select 1 as one`.execute(db)).resolves.toMatchObject({ rows: [{ one: 1 }] });
});
