import { withTenant, type Database } from '@crm/shared/db';
import { testDb } from '@crm/shared/testing';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { listActivities, listContacts, listProducts } from '../src';
import { recordsDb } from './support/records-db';

/**
 * Database tier: every sort the contact, product and activity lists offer, and every activity
 * filter, is read in order from an index (no Sort node), so a page does not sort the tenant's
 * rows. Sequential and bitmap scans are switched off for the EXPLAIN: the question is whether an
 * index gives the order, not what the planner prefers on a table of a few rows.
 */
const database = testDb();
const records = recordsDb(database);
afterAll(() => database.close());

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The SELECT a list function sends, captured by a logging Kysely on the same pool. */
async function selectOf(
  tenantId: string,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery> {
  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && /^select/i.test(event.query.sql)) captured.push(event.query);
    },
  });
  await withTenant(logging, tenantId, (trx) => run(trx as unknown as Kysely<Database>));
  expect(captured).toHaveLength(1);
  return captured[0];
}

async function planOf(tenantId: string, query: CompiledQuery): Promise<PlanNode[]> {
  return withTenant(database.db, tenantId, async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  });
}

/** The index scans of a plan, and whether it sorts. */
async function scans(tenantId: string, run: (db: Kysely<Database>) => Promise<unknown>) {
  const nodes = await planOf(tenantId, await selectOf(tenantId, run));
  return {
    indexes: nodes.filter((n) => n['Index Name']).map((n) => n['Index Name']),
    sorts: nodes.some((n) => /Sort/.test(n['Node Type'])),
    seqScan: nodes.some((n) => n['Node Type'] === 'Seq Scan'),
  };
}

const page = (sortBy: string, sortOrder: 'asc' | 'desc') => ({
  page: 1,
  pageSize: 20,
  sortBy,
  sortOrder,
});

let tenantId: string;
beforeAll(async () => {
  tenantId = await records.tenant();
  // Enough contacts that an email prefix is selective: the planner then reads it from an index.
  await records.asTenant(tenantId, (trx) =>
    sql`INSERT INTO crm_contacts (tenant_id, email, last_name)
      SELECT ${tenantId}, 'user' || g || '@example.com', 'Name ' || g
      FROM generate_series(1, 3000) AS g`.execute(trx),
  );
  await sql`ANALYZE crm_contacts, crm_products, crm_activities`.execute(database.db);
});

describe('index-backed lists', () => {
  it.each([
    ['created_at', 'crm_contacts_by_created'],
    ['email', 'crm_contacts_by_email'],
    ['last_name', 'crm_contacts_by_last_name'],
  ])('contacts sorted by %s read %s in order, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans(tenantId, (trx) =>
        listContacts(trx as never, tenantId, page(sortBy, order)),
      );
      expect(plan).toEqual({ indexes: [index], sorts: false, seqScan: false });
    }
  });

  it('the contact q (an email prefix) is answered from an email index, not a scan of the table', async () => {
    const plan = await scans(tenantId, (trx) =>
      listContacts(trx as never, tenantId, page('created_at', 'desc'), { q: 'ann' }),
    );
    expect(plan.seqScan).toBe(false);
    expect(plan.indexes).toEqual(['crm_contacts_by_email_prefix']);
  });

  it.each([
    ['created_at', 'crm_products_by_created'],
    ['sku', 'crm_products_tenant_id_sku_key'],
  ])('products sorted by %s read %s in order, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans(tenantId, (trx) =>
        listProducts(trx as never, tenantId, page(sortBy, order)),
      );
      // sku is unique: the id after it never reorders, but the planner does not know that.
      expect(plan).toMatchObject({ indexes: [index], seqScan: false });
      if (sortBy !== 'sku') expect(plan.sorts).toBe(false);
    }
  });

  it.each([
    [{}, 'crm_activities_by_occurred'],
    [{ lead_id: '00000000-0000-4000-8000-000000000001' }, 'crm_activities_by_lead'],
    [{ contact_id: '00000000-0000-4000-8000-000000000001' }, 'crm_activities_by_contact'],
    [{ deal_id: '00000000-0000-4000-8000-000000000001' }, 'crm_activities_by_deal'],
  ])('activities filtered by %j read %s in occurred_at order', async (filters, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans(tenantId, (trx) =>
        listActivities(trx as never, tenantId, page('occurred_at', order), filters),
      );
      expect(plan).toEqual({ indexes: [index], sorts: false, seqScan: false });
    }
  });
});
