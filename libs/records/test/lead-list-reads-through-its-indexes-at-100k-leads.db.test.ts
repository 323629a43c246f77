import { withSystemScope, withTenant, type Database, type Db } from '@crm/shared/db';
import type { CursorPageQuery } from '@crm/shared/pagination';
import { createTenant, isolatedTestDb, statementLog } from '@crm/shared/testing';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import {
  FILL_LEAD_SEARCH_TEXTS,
  indexLeadSearchTexts,
  LEAD_SORT_KEYS,
  listLeads,
  type LeadFilters,
  type LeadSortKey,
} from '../src';

/*
 * The lead list at 100,000 leads in one tenant: each query the repository sends (captured as
 * it runs, then EXPLAINed with the same parameters and the same tenant scope) reads the
 * leads through an index, never by scanning and sorting the tenant's rows. The plans, not
 * timings, are what is pinned: speed is the benchmarks' to measure.
 */
const LEADS = 100_000;
const CURSORS = { secret: 'explain test cursor secret' };

let database: Db;
let db: Kysely<Database>;
let tenantId: string;
let sent: CompiledQuery[] = [];

beforeAll(async () => {
  database = await isolatedTestDb();
  ({ db, sent } = statementLog(database));
  tenantId = (await createTenant(database)).id;
  const other = (await createTenant(database)).id;
  for (const [tenant, count] of [
    [tenantId, LEADS],
    [other, 1000],
  ] as const) {
    await sql`
      INSERT INTO crm_leads (tenant_id, email, first_name, last_name, phone, status, source,
                             custom_fields, created_at, updated_at)
      SELECT ${tenant}::uuid, 'lead' || n || '@example' || (n % 100) || '.com',
             CASE WHEN n % 10 = 0 THEN NULL ELSE 'first' || n END, 'last' || n,
             '+1555' || lpad(n::text, 7, '0'),
             (ARRAY['new','contacted','qualified','unqualified','converted','lost'])[1 + n % 6],
             (ARRAY['web_form','api_import','referral','email'])[1 + n % 4],
             jsonb_build_object('company', 'company' || (n % 1000)),
             now() - n * interval '1 second', now() - (n % 5000) * interval '1 minute'
        FROM generate_series(1, ${count}::int) AS n`.execute(database.db);
  }
  // Written straight into the table, announced by no event: the search index is filled as the
  // benchmarks' seeders fill it.
  await sql.raw(FILL_LEAD_SEARCH_TEXTS).execute(database.db);
  await sql`VACUUM ANALYZE crm_leads, crm_lead_search_texts`.execute(database.db);
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await database?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
function nodesOf(node: PlanNode): string[] {
  const own = `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`.trim();
  return [own, ...(node.Plans ?? []).flatMap(nodesOf)];
}

const page = (p: Partial<CursorPageQuery<LeadSortKey>> = {}): CursorPageQuery<LeadSortKey> => ({
  page: 1,
  pageSize: 50,
  sortBy: 'created_at',
  sortOrder: 'desc',
  ...p,
});

/**
 * Runs the list as the route does and returns its result and the plan nodes of the one
 * statement it sent for the page (the one that carries the capped count).
 */
async function listAndPlan(query: CursorPageQuery<LeadSortKey>, filters: LeadFilters = {}) {
  sent.length = 0;
  const result = await withTenant(db, tenantId, (trx) =>
    listLeads(trx, tenantId, query, filters, CURSORS),
  );
  // The statement that carries the count: the page's, or a search's walk (walkForSearch).
  const statement = sent.findLast((q) => /__total|__matched/.test(q.sql));
  if (!statement) throw new Error('the list sent no page statement');
  const plan = await withTenant(db, tenantId, async (trx) => {
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  });
  return { result, plan };
}

/** No scan of the table itself and no full sort: every read of crm_leads is an index's. */
function expectIndexedOnly(plan: string[]) {
  expect(plan.filter((n) => n.startsWith('Seq Scan'))).toEqual([]);
  expect(plan.filter((n) => n === 'Sort')).toEqual([]);
}

const SORT_INDEX: Record<LeadSortKey, string> = {
  created_at: 'crm_leads_by_created_at',
  email: 'crm_leads_tenant_id_email_key',
  status: 'crm_leads_by_status',
  source: 'crm_leads_by_source',
};

describe('the lead list at 100,000 leads in one tenant', () => {
  it('the first page reads the created_at index and counts exactly only up to 10,000', async () => {
    const { result, plan } = await listAndPlan(page());
    expect(plan.some((n) => /^Index (Only )?Scan crm_leads_by_created_at$/.test(n))).toBe(true);
    expectIndexedOnly(plan);
    expect(result.items).toHaveLength(50);
    expect(result.items[0].email).toBe('lead1@example1.com');
    expect(result).toMatchObject({ total: 10_000, totalExact: false, totalPages: 200 });
  });

  it('a cursor page seeks in the index, and continues exactly where the page before ended', async () => {
    const first = await listAndPlan(page());
    const { result, plan } = await listAndPlan(page({ cursor: first.result.nextCursor as string }));
    expect(plan.some((n) => /^Index (Only )?Scan crm_leads_by_created_at$/.test(n))).toBe(true);
    expectIndexedOnly(plan);
    expect(result.page).toBe(2);
    expect(result.items[0].email).toBe('lead51@example51.com');
    expect(result.items.map((l) => l.email)).not.toContain(first.result.items[49].email);
  });

  for (const sortBy of Object.keys(SORT_INDEX) as LeadSortKey[]) {
    for (const sortOrder of ['asc', 'desc'] as const) {
      it(`sortBy=${sortBy} ${sortOrder} reads ${SORT_INDEX[sortBy]}, by page and by cursor`, async () => {
        const first = await listAndPlan(page({ sortBy, sortOrder }));
        const readsIndex = (plan: string[]) =>
          plan.some((n) => n.includes('Scan') && n.endsWith(` ${SORT_INDEX[sortBy]}`));
        expect(readsIndex(first.plan)).toBe(true);
        expectIndexedOnly(first.plan);
        const next = await listAndPlan(
          page({ sortBy, sortOrder, cursor: first.result.nextCursor as string }),
        );
        expect(readsIndex(next.plan)).toBe(true);
        expectIndexedOnly(next.plan);
        expect(next.result.items).toHaveLength(50);
      });
    }
  }

  it('a status filter reads an index and counts the filtered rows', async () => {
    const { result, plan } = await listAndPlan(page(), { status: 'qualified' });
    expectIndexedOnly(plan);
    expect(result.items.every((l) => l.status === 'qualified')).toBe(true);
    expect(result).toMatchObject({ total: 10_000, totalExact: false });
  });

  it.each([
    ['one email', 'lead12345@example45.com', ['lead12345@example45.com']],
    ['a last name and the ten it starts', 'LAST4242', 11],
    ['a full name', 'first777  last777', ['lead777@example77.com']],
    ['a phone number', '+15550054321', ['lead54321@example21.com']],
    ['a company', 'company999', 100],
  ] as const)('q finds %s through the search table trigram index', async (_, q, expected) => {
    const { result, plan } = await listAndPlan(page(), { q });
    expect(plan.some((n) => n === 'Bitmap Index Scan crm_lead_search_texts_trgm')).toBe(true);
    expect(plan.filter((n) => n.startsWith('Seq Scan'))).toEqual([]);
    if (typeof expected === 'number') {
      expect(result).toMatchObject({ total: expected, totalExact: true });
    } else {
      // The other tenant has a lead1..lead1000 of its own: never found here.
      expect(result.items.map((l) => l.email)).toEqual(expected);
    }
  });

  it('q matching most leads walks the sort index instead, and counts what it walked', async () => {
    const { result, plan } = await listAndPlan(page(), { q: 'EXAMPLE' });
    expect(plan.some((n) => /^Index (Only )?Scan crm_leads_by_created_at$/.test(n))).toBe(true);
    expect(plan.filter((n) => n.startsWith('Seq Scan') || n.startsWith('Bitmap'))).toEqual([]);
    expect(result.items).toHaveLength(50);
    expect(result.items.map((l) => l.email).slice(0, 2)).toEqual([
      'lead1@example1.com',
      'lead2@example2.com',
    ]);
    // Every one of the 2,500 leads walked matched: at least that many, not an exact count.
    expect(result).toMatchObject({ total: 2500, totalExact: false });
    const next = await listAndPlan(page({ cursor: result.nextCursor as string }), { q: 'EXAMPLE' });
    expect(next.result.items[0].email).toBe('lead51@example51.com');
    // The count of the first page, carried by its cursor.
    expect(next.result).toMatchObject({ page: 2, total: 2500, totalExact: false });
    expect(next.plan.filter((n) => n.startsWith('Seq Scan') || n.startsWith('Bitmap'))).toEqual([]);
  });

  it('q matching one lead in 1,000 leaves the walk for the trigram index, and its cursor goes on', async () => {
    // first777, first777x, first777xx: 100 leads (every tenth has no first name), one of them
    // among the 2,500 newest the walk reads.
    const first = await listAndPlan(page({ pageSize: 20 }), { q: 'first777' });
    expect(first.plan.some((n) => n === 'Bitmap Index Scan crm_lead_search_texts_trgm')).toBe(true);
    expect(first.result).toMatchObject({ total: 100, totalExact: true });
    const next = await listAndPlan(
      page({ pageSize: 20, cursor: first.result.nextCursor as string }),
      {
        q: 'first777',
      },
    );
    // After the 20th (lead77711) the matches are dense (lead77712..77799): the walk serves.
    expect(next.plan.filter((n) => n.startsWith('Seq Scan'))).toEqual([]);
    expect(next.result.items.map((l) => l.email).slice(0, 2)).toEqual([
      'lead77712@example12.com',
      'lead77713@example13.com',
    ]);
    expect(next.result).toMatchObject({ page: 2, total: 100, totalExact: true });
  });

  it('an email asks the trigram index for the part before the @ and matches the whole of it', async () => {
    const found = await listAndPlan(page(), { q: 'Lead77712@Example12.com' });
    expect(found.plan.some((n) => n === 'Bitmap Index Scan crm_lead_search_texts_trgm')).toBe(true);
    expect(found.result.items.map((l) => l.email)).toEqual(['lead77712@example12.com']);
    expect(found.result).toMatchObject({ total: 1, totalExact: true });
    // The index is asked for the part before the @ (its domain is in a hundredth of the rows).
    const statement = sent.findLast((q) => q.sql.includes('crm_lead_search_candidates'));
    expect(statement?.parameters).toContain('%Lead77712%');
    // The same part with another domain: nominated by the index, refused by the whole term.
    const other = await listAndPlan(page(), { q: 'lead77712@example13.com' });
    expect(other.result).toMatchObject({ items: [], total: 0, totalExact: true });
  });

  it('the search view shows the tenant of the transaction only, nothing without one, and takes no writes', async () => {
    const count = (trx: Kysely<Database>) =>
      trx
        .selectFrom('crm_lead_search')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
    expect(await count(db)).toEqual({ n: '0' });
    expect(await withTenant(db, tenantId, (trx) => count(trx as never))).toEqual({
      n: String(LEADS),
    });
    await expect(
      withTenant(db, tenantId, (trx) =>
        sql`UPDATE crm_lead_search SET status = 'lost' WHERE tenant_id = ${tenantId}`.execute(trx),
      ),
    ).rejects.toThrow(/permission denied/);
  });

  it('the search table is read through its view only: the tenant of the transaction, nothing without one, never written', async () => {
    const count = (trx: Kysely<Database>) =>
      trx
        .selectFrom('crm_lead_search_candidates')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
    expect(await count(db)).toEqual({ n: '0' });
    await withTenant(db, tenantId, async (trx) => {
      expect(await count(trx as never)).toEqual({ n: String(LEADS) });
    });
    await expect(
      withTenant(db, tenantId, (trx) => sql`SELECT 1 FROM crm_lead_search_texts`.execute(trx)),
    ).rejects.toThrow(/permission denied/);
    await expect(
      withTenant(db, tenantId, (trx) =>
        sql`DELETE FROM crm_lead_search_candidates WHERE true`.execute(trx),
      ),
    ).rejects.toThrow(/permission denied/);
    // The other tenant has its own lead999@example99.com: the search finds this tenant's only.
    const { result, plan } = await listAndPlan(page(), { q: 'lead999@example99.com' });
    expect(plan.some((n) => n === 'Bitmap Index Scan crm_lead_search_texts_trgm')).toBe(true);
    const ids = result.items.map((l) => l.id);
    expect(ids).toHaveLength(1);
    const owners = await sql<{ tenant_id: string }>`
      SELECT tenant_id FROM crm_leads WHERE id = ${ids[0]}::uuid`.execute(database.db);
    expect(owners.rows).toEqual([{ tenant_id: tenantId }]);
  });

  it('a stale search row never returns a lead that does not match, and only hides one until it is indexed again', async () => {
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM crm_leads WHERE tenant_id = ${tenantId} AND email = 'lead54321@example21.com'`.execute(
      database.db,
    );
    const leadId = rows[0].id;
    // The row says what the lead no longer is (as after an update the indexer has not seen).
    await sql`UPDATE crm_lead_search_texts SET search_text = 'zqstale text'
      WHERE lead_id = ${leadId}::uuid`.execute(database.db);
    const stale = await listAndPlan(page(), { q: 'zqstale' });
    expect(stale.plan.some((n) => n === 'Bitmap Index Scan crm_lead_search_texts_trgm')).toBe(true);
    expect(stale.result).toMatchObject({ items: [], total: 0, totalExact: true });
    expect((await listAndPlan(page(), { q: '+15550054321' })).result.items).toEqual([]);

    await withSystemScope(db, (trx) => indexLeadSearchTexts(trx, [leadId]));
    expect((await listAndPlan(page(), { q: 'zqstale' })).result.items).toEqual([]);
    const found = await listAndPlan(page(), { q: '+15550054321' });
    expect(found.result.items.map((l) => l.id)).toEqual([leadId]);
  });

  it('the sorts without an index behind them are not offered', () => {
    expect(Object.keys(LEAD_SORT_KEYS).sort()).toEqual(Object.keys(SORT_INDEX).sort());
  });
});
