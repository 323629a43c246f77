import { withTenant, type Database } from '@crm/shared/db';
import { testDb } from '@crm/shared/testing';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import type { CursorPage } from '@crm/shared/pagination';
import {
  listActivities,
  listContacts,
  listProducts,
  type Contact,
  type ContactSortKey,
} from '../src';
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

/** The SELECTs (and WITH ... SELECTs) a list function sends, captured by a logging Kysely on the same pool. */
async function selectsOf(
  tenantId: string,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && /^\s*(select|with)/i.test(event.query.sql)) {
        captured.push(event.query);
      }
    },
  });
  await withTenant(logging, tenantId, (trx) => run(trx as unknown as Kysely<Database>));
  return captured;
}

/** The one SELECT a list function sends. */
async function selectOf(
  tenantId: string,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery> {
  const captured = await selectsOf(tenantId, run);
  expect(captured).toHaveLength(1);
  return captured[0];
}

async function planOf(
  tenantId: string,
  query: CompiledQuery,
  { bitmaps = false } = {},
): Promise<PlanNode[]> {
  return withTenant(database.db, tenantId, async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    // Off but for a trigram index, which only a bitmap scan reads.
    if (!bitmaps) await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  });
}

/** The indexes a plan scans (each once; a capped count reads the page's index again), whether it sorts. */
function scansOf(nodes: PlanNode[]) {
  return {
    indexes: [...new Set(nodes.filter((n) => n['Index Name']).map((n) => n['Index Name']))],
    sorts: nodes.some((n) => /Sort/.test(n['Node Type'])),
    seqScan: nodes.some((n) => n['Node Type'] === 'Seq Scan'),
  };
}

async function scans(tenantId: string, run: (db: Kysely<Database>) => Promise<unknown>) {
  return scansOf(await planOf(tenantId, await selectOf(tenantId, run)));
}

/**
 * The second page of a list, by the first page's nextCursor: its one statement starts after the
 * first page's last row (a row comparison), reads `index` with no sort, and shares no row with
 * the first page.
 */
async function expectCursorPageSeeks<T extends { id: string }>(
  list: (db: Kysely<Database>, cursor?: string) => Promise<CursorPage<T>>,
  index: string,
  options: { sorts?: boolean } = {},
) {
  const first = await records.asTenant(tenantId, (trx) => list(trx as never));
  const cursor = first.nextCursor as string;
  expect(typeof cursor).toBe('string');
  let second: CursorPage<T> | undefined;
  const statement = await selectOf(tenantId, async (trx) => {
    second = await list(trx, cursor);
  });
  expect(statement.sql).toMatch(/\) [<>] \(CAST\(/);
  expect(scansOf(await planOf(tenantId, statement))).toEqual({
    indexes: [index],
    sorts: options.sorts ?? false,
    seqScan: false,
  });
  expect(second?.page).toBe(2);
  expect(second?.items).toHaveLength(20);
  const firstIds = new Set(first.items.map((row) => row.id));
  expect(second?.items.some((row) => firstIds.has(row.id))).toBe(false);
}

const CURSORS = { secret: 'explain test cursor secret' };
type ContactPage = CursorPage<Contact>;

const page = (sortBy: string, sortOrder: 'asc' | 'desc', cursor?: string) => ({
  page: 1,
  pageSize: 20,
  sortBy: sortBy as ContactSortKey,
  sortOrder,
  cursor,
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
  // And products and activities (a tenth of them about one lead, contact and deal), so that a
  // page of each is a real read and not the plan of an empty table.
  await records.asTenant(tenantId, async (trx) => {
    await sql`INSERT INTO crm_products (tenant_id, sku, name)
      SELECT ${tenantId}, 'SKU-' || g, 'Product ' || g FROM generate_series(1, 3000) AS g`.execute(
      trx,
    );
    await sql`INSERT INTO crm_activities (tenant_id, type, occurred_at)
      SELECT ${tenantId}, 'note', now() - g * interval '1 minute'
      FROM generate_series(1, 3000) AS g`.execute(trx);
  });
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
        listContacts(trx as never, tenantId, page(sortBy, order), {}, CURSORS),
      );
      expect(plan).toEqual({ indexes: [index], sorts: false, seqScan: false });
    }
  });

  it.each([
    ['created_at', 'crm_contacts_by_created'],
    ['email', 'crm_contacts_by_email'],
    ['last_name', 'crm_contacts_by_last_name'],
  ])('a cursor page of contacts by %s seeks in %s, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const first = await records.asTenant(tenantId, (trx) =>
        listContacts(trx, tenantId, page(sortBy, order), {}, CURSORS),
      );
      const cursor = first.nextCursor as string;
      expect(typeof cursor).toBe('string');
      let second: ContactPage | undefined;
      const statement = await selectOf(tenantId, async (trx) => {
        second = await listContacts(
          trx as never,
          tenantId,
          page(sortBy, order, cursor),
          {},
          CURSORS,
        );
      });
      // The page's statement starts after the last row of the page before: a row comparison.
      expect(statement.sql).toMatch(/\) [<>] \(CAST\(/);
      expect(scansOf(await planOf(tenantId, statement))).toEqual({
        indexes: [index],
        sorts: false,
        seqScan: false,
      });
      expect(second?.page).toBe(2);
      const firstIds = new Set(first.items.map((c) => c.id));
      expect(second?.items).toHaveLength(20);
      expect(second?.items.some((c) => firstIds.has(c.id))).toBe(false);
    }
  });

  it.each([['email'], ['last_name']])(
    'contacts without %s: every statement of a cursor walk either way reads the index, and the walk is the order of one big page',
    async (sortBy) => {
      const index = sortBy === 'email' ? 'crm_contacts_by_email' : 'crm_contacts_by_last_name';
      const few = await records.tenant();
      // 200 with the column set, 200 without (a contact with only a phone has no email), and
      // statistics that know it: on a tenant of a dozen rows any plan costs nothing, and the
      // planner's pick among them is a coin toss.
      await records.asTenant(few, (trx) =>
        sql`INSERT INTO crm_contacts (tenant_id, email, phone, last_name)
          SELECT ${few}, CASE WHEN g <= 200 THEN 'p' || g || '@example.com' END, '+1555' || g,
                 CASE WHEN g <= 200 THEN 'Name ' || (g % 3) END
          FROM generate_series(1, 400) AS g`.execute(trx),
      );
      await sql`ANALYZE crm_contacts`.execute(database.db);
      for (const order of ['asc', 'desc'] as const) {
        const whole = await records.asTenant(few, (trx) =>
          listContacts(trx, few, { ...page(sortBy, order), pageSize: 1000 }, {}, CURSORS),
        );
        expect(whole.items).toHaveLength(400);
        const withValue = whole.items.map((c) => (c as Record<string, unknown>)[sortBy] !== null);
        // NULLs come last ascending, first descending (as the index holds them).
        expect(withValue).toEqual(
          order === 'asc'
            ? [...Array(200).fill(true), ...Array(200).fill(false)]
            : [...Array(200).fill(false), ...Array(200).fill(true)],
        );
        const walked: string[] = [];
        let cursor: string | undefined;
        let statements = 0;
        do {
          let got: ContactPage | undefined;
          const sent = await selectsOf(few, async (trx) => {
            got = await listContacts(
              trx as never,
              few,
              { ...page(sortBy, order, cursor), pageSize: 30 },
              {},
              CURSORS,
            );
          });
          for (const statement of sent) {
            expect(scansOf(await planOf(few, statement))).toEqual({
              indexes: [index],
              sorts: false,
              seqScan: false,
            });
          }
          statements += sent.length;
          walked.push(...(got as ContactPage).items.map((c) => c.id));
          cursor = (got as ContactPage).nextCursor ?? undefined;
        } while (cursor);
        expect(walked).toEqual(whole.items.map((c) => c.id));
        // 14 pages of 30 over 200 + 200 rows: the one after row 180 crosses from the values to
        // the NULLs (or back), and reads the two ranges one after the other.
        expect(statements).toBe(15);
      }
    },
  );

  it('the contact q walks the sort index first, then reads a rare term through an index', async () => {
    let found: unknown;
    const sent = await selectsOf(tenantId, async (trx) => {
      found = await listContacts(
        trx as never,
        tenantId,
        page('created_at', 'desc'),
        { q: 'user123' },
        CURSORS,
      );
    });
    // user123 and user1230..user1239: too few in the 2,500 contacts walked to fill a page.
    expect(found).toMatchObject({ total: 11, totalExact: true });
    expect(sent).toHaveLength(2);
    const walk = scansOf(await planOf(tenantId, sent[0]));
    // The sort's index for the walk, the primary key for the full rows of the hits.
    expect(walk).toMatchObject({
      indexes: ['crm_contacts_by_created', 'crm_contacts_pkey'],
      seqScan: false,
    });
    // At 3,000 contacts Postgres picks among the indexes as it likes (the sort's, the
    // trigram's); the choice of the trigram index at scale is pinned on 100,000 leads (their
    // search view is the same). What holds here: no scan of the table.
    const search = scansOf(await planOf(tenantId, sent[1], { bitmaps: true }));
    expect(search.seqScan).toBe(false);
  });

  it('the contact q asks the index for the part of an email before the @, and matches the whole', async () => {
    const found: unknown[] = [];
    const sent = await selectsOf(tenantId, async (trx) => {
      for (const q of ['User1234@Example.com', 'user1234@example.org']) {
        found.push(
          await listContacts(trx as never, tenantId, page('created_at', 'desc'), { q }, CURSORS),
        );
      }
    });
    expect(found[0]).toMatchObject({
      total: 1,
      totalExact: true,
      items: [{ email: 'user1234@example.com' }],
    });
    // The same part with another domain: found by the index, refused by the whole term.
    expect(found[1]).toMatchObject({ total: 0, totalExact: true, items: [] });
    expect(sent.flatMap((q) => q.parameters)).toContain('%User1234%');
  });

  it.each([
    ['created_at', 'crm_products_by_created'],
    ['sku', 'crm_products_tenant_id_sku_key'],
  ])('products sorted by %s read %s in order, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans(tenantId, (trx) =>
        listProducts(trx as never, tenantId, page(sortBy, order) as never, {}, CURSORS),
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
      // Of a record with no activity: the empty page, then the count on its own.
      const sent = await selectsOf(tenantId, (trx) =>
        listActivities(
          trx as never,
          tenantId,
          page('occurred_at', order) as never,
          filters,
          CURSORS,
        ),
      );
      expect(sent.length).toBeGreaterThan(0);
      for (const statement of sent) {
        expect(scansOf(await planOf(tenantId, statement))).toEqual({
          indexes: [index],
          sorts: false,
          seqScan: false,
        });
      }
    }
  });
  it.each([
    ['created_at', 'crm_products_by_created', false],
    ['sku', 'crm_products_tenant_id_sku_key', true],
  ] as const)(
    'a cursor page of products by %s seeks in %s, either way',
    async (sortBy, index, sorts) => {
      for (const order of ['asc', 'desc'] as const) {
        await expectCursorPageSeeks(
          (trx, cursor) =>
            listProducts(trx as never, tenantId, page(sortBy, order, cursor) as never, {}, CURSORS),
          index,
          // sku is unique: its index has no id, so the page's tie-break is a sort of the rows of
          // one sku (Incremental Sort), never of the tenant's products.
          { sorts },
        );
      }
    },
  );

  it('a cursor page of activities seeks in crm_activities_by_occurred, either way', async () => {
    for (const order of ['asc', 'desc'] as const) {
      await expectCursorPageSeeks(
        (trx, cursor) =>
          listActivities(
            trx as never,
            tenantId,
            page('occurred_at', order, cursor) as never,
            {},
            CURSORS,
          ),
        'crm_activities_by_occurred',
      );
    }
  });
});
