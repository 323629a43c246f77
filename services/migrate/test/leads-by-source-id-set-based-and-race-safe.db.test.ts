import { withSystemScope, withTenant } from '@crm/shared/db';
import { createTenant, eventually, testDb } from '@crm/test-kit';
import { sql, type KyselyPlugin } from 'kysely';
import type { SourceRecord } from '../src/ingest/writer-contract';
import { writeLeadsBySourceId } from '../src/ingest/lead-writer';
import { recordMappings } from '../src/ingest/migration-records.repository';

/**
 * The migrate lead writer beyond what a request through the gateway shows: a batch of
 * thousands costs a handful of statements whatever its mix, and another transaction taking an
 * email meanwhile makes the writer read again instead of failing the request.
 */
const database = testDb();
const { db } = database;
afterAll(() => database.close());

let statements = 0;
const counting: KyselyPlugin = {
  transformQuery: (args) => {
    statements++;
    return args.node;
  },
  transformResult: async (args) => args.result,
};
const countedDb = db.withPlugin(counting);

const records = (rows: Array<Record<string, unknown>>): SourceRecord[] =>
  rows.map(({ external_id, ...fields }, index) => ({
    index,
    external_id: external_id as string,
    fields,
  }));

/** One request's write, as the ingest route does it (writer, then the mappings). */
async function migrate(tenantId: string, rows: Array<Record<string, unknown>>) {
  return withTenant(countedDb, tenantId, async (trx) => {
    statements = 0;
    const outcome = await writeLeadsBySourceId(
      { trx, tenantId, sourceSystem: 'hubspot' },
      records(rows),
    );
    await recordMappings(trx, tenantId, 'hubspot', 'leads', outcome.stored);
    return { ...outcome, statements };
  });
}

const emailsOf = (tenantId: string) =>
  withSystemScope(db, async (trx) =>
    (
      await trx
        .selectFrom('crm_leads')
        .select('email')
        .where('tenant_id', '=', tenantId)
        .orderBy('email')
        .execute()
    ).map((r) => r.email),
  );

describe('migrating leads by source id', () => {
  it('a batch of 3,000 with new, changed, adopted and colliding records costs a fixed handful of statements', async () => {
    const tenant = await createTenant(database);
    const first = await migrate(
      tenant.id,
      Array.from({ length: 2000 }, (_, i) => ({ external_id: `s${i}`, email: `old${i}@x.com` })),
    );
    expect(first.errors).toEqual([]);
    expect(first.statements).toBeGreaterThanOrEqual(5);
    expect(first.statements).toBeLessThanOrEqual(8);
    await withTenant(db, tenant.id, (trx) =>
      sql`INSERT INTO crm_leads (tenant_id, email) VALUES (${tenant.id}, 'web@x.com')`.execute(trx),
    );

    const second = await migrate(tenant.id, [
      // 1,000 changed emails, 1,000 new, one adopting, one colliding.
      ...Array.from({ length: 1000 }, (_, i) => ({ external_id: `s${i}`, email: `new${i}@x.com` })),
      ...Array.from({ length: 1000 }, (_, i) => ({ external_id: `n${i}`, email: `n${i}@x.com` })),
      { external_id: 'w', email: 'web@x.com' },
      { external_id: 's1500', email: 'old1501@x.com' },
    ]);
    expect(second.errors).toEqual([
      { index: 2001, error: expect.stringContaining('old1501@x.com') },
    ]);
    expect(second.stored.filter((s) => s.created)).toHaveLength(1000);
    expect(second.stored.filter((s) => !s.created)).toHaveLength(1001);
    expect(second.statements).toBeLessThanOrEqual(9);
    const emails = await emailsOf(tenant.id);
    expect(emails).toHaveLength(3001);
    expect(emails).toContain('new999@x.com');
    expect(emails).not.toContain('old999@x.com');
  });

  it('another transaction inserting a lead with the email meanwhile: the writer reads again and adopts it', async () => {
    const tenant = await createTenant(database);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const hasInserted = new Promise<void>((resolve) => (inserted = resolve));
    const other = withTenant(db, tenant.id, async (trx) => {
      await sql`INSERT INTO crm_leads (tenant_id, email, first_name)
        VALUES (${tenant.id}, 'race@x.com', 'Other')`.execute(trx);
      inserted();
      await released;
    });
    await hasInserted;
    const ours = migrate(tenant.id, [{ external_id: 'r', email: 'race@x.com', last_name: 'Ours' }]);
    // Our INSERT waits for the other transaction's uncommitted row, then fails on its commit.
    await eventually(async () => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'
           AND query ILIKE '%INSERT INTO crm_leads%'`.execute(db);
      expect(rows[0].n).toBeGreaterThan(0);
    });
    release();
    await other;
    const outcome = await ours;
    expect(outcome.errors).toEqual([]);
    expect(outcome.stored).toMatchObject([{ external_id: 'r', created: false }]);
    const leads = await withSystemScope(db, (trx) =>
      trx
        .selectFrom('crm_leads')
        .select(['id', 'email', 'first_name', 'last_name'])
        .where('tenant_id', '=', tenant.id)
        .execute(),
    );
    expect(leads).toEqual([
      {
        id: outcome.stored[0].record_id,
        email: 'race@x.com',
        first_name: 'Other',
        last_name: 'Ours',
      },
    ]);
  });
});
