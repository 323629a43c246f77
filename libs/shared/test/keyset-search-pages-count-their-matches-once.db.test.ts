import { type CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { COUNT_LIMIT, paginateByKeyset, type CursorPageQuery } from '@crm/shared/pagination';
import { testDb } from '@crm/shared/testing';

/*
 * A search counts its matches once: on its first page, from one read of its matches when the
 * walk of the sort's index does not settle the page, and its cursors carry that count to the
 * next pages, which never count again.
 *
 * On a temporary table of 20,000 items, newest first: "rare" is every 1,000th item from the
 * 3,000th (18 matches, none among the 2,500 the first page walks, two among the 2,500 after
 * page 1's last); "old" is every item from the 5,000th (16,001: more than the count's limit,
 * none among the 2,500 the first page walks).
 */
const ITEMS = 20_000;
const database = testDb();
const sent: CompiledQuery[] = [];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a temporary table has no schema type
type Items = any;
const db = new Kysely<Items>({
  dialect: new PostgresDialect({ pool: database.pool }),
  log: (event) => {
    if (event.level === 'query') sent.push(event.query);
  },
});

afterAll(async () => {
  await db.destroy();
  await database.close();
});

const SORT_KEYS = { created_at: { expression: sql`created_at`, type: 'timestamptz' as const } };
const numbers = (page: { items: Array<{ n: number }> }) => page.items.map((i) => i.n);
/** The statements sent since the last reset, without the transaction's own. */
const reads = () => sent.map((q) => q.sql).filter((s) => !/^\s*(begin|commit)/i.test(s));

/** Runs `test` with the items table and a page reader searching for a term, in one transaction. */
async function withItems(
  test: (
    pageOf: (term: string, at: { page?: number; cursor?: string }) => ReturnType<typeof search>,
  ) => Promise<void>,
) {
  await db.transaction().execute(async (trx) => {
    await sql`CREATE TEMPORARY TABLE items (id uuid PRIMARY KEY, n int NOT NULL, name text NOT NULL,
                created_at timestamptz NOT NULL) ON COMMIT DROP`.execute(trx);
    await sql`INSERT INTO items
      SELECT md5(n::text)::uuid, n,
             CASE WHEN n >= 3000 AND n % 1000 = 0 THEN 'rare ' ELSE '' END
               || CASE WHEN n >= 5000 THEN 'old ' ELSE '' END || 'item ' || n,
             timestamptz '2026-01-01' - n * interval '1 second'
        FROM generate_series(1, ${ITEMS}::int) AS n`.execute(trx);
    await sql`CREATE INDEX ON items (created_at, id)`.execute(trx);
    await test((term, at) => search(trx, term, at));
  });
}

function search(trx: Transaction<Items>, term: string, at: { page?: number; cursor?: string }) {
  const page: CursorPageQuery<string> = {
    page: at.page ?? 1,
    pageSize: 5,
    sortBy: 'created_at',
    sortOrder: 'desc',
    ...(at.cursor ? { cursor: at.cursor } : {}),
  };
  return paginateByKeyset(trx, trx.selectFrom('items').select(['id', 'n', 'name']), page, {
    sortKeys: SORT_KEYS,
    tiebreak: 'id',
    binding: { secret: 'search count test', scope: 'items', filters: { q: term } },
    filtered: true,
    search: sql<boolean>`name LIKE ${`%${term}%`}`,
  });
}

it('a search the walk does not settle counts and pages its matches from one read of them', async () => {
  await withItems(async (pageOf) => {
    sent.length = 0;
    const first = await pageOf('rare', {});
    expect(numbers(first)).toEqual([3000, 4000, 5000, 6000, 7000]);
    expect(first).toMatchObject({ total: 18, totalExact: true, totalPages: 4 });
    // The walk, then one statement that keeps the matches and both counts and pages them.
    expect(reads()).toHaveLength(2);
    expect(reads()[1]).toContain('WITH matched AS MATERIALIZED');

    // A page by number: the same single read, from its offset.
    const second = await pageOf('rare', { page: 2 });
    expect(numbers(second)).toEqual([8000, 9000, 10000, 11000, 12000]);
    expect(second).toMatchObject({ page: 2, total: 18, totalExact: true });
    // Past the last match: no rows, the count still exact.
    const past = await pageOf('rare', { page: 5 });
    expect(past).toMatchObject({ items: [], total: 18, totalExact: true, nextCursor: null });
  });
});

it('more matches than the count limit: the page is read in the sort order, the total a lower bound', async () => {
  await withItems(async (pageOf) => {
    sent.length = 0;
    const many = await pageOf('old', {});
    expect(numbers(many)).toEqual([5000, 5001, 5002, 5003, 5004]);
    expect(many).toMatchObject({ total: COUNT_LIMIT, totalExact: false });
    // The walk, the kept matches (too many), then the page alone, with no count of its own.
    expect(reads()).toHaveLength(3);
    expect(reads()[2]).not.toMatch(/count\(\*\)/);
  });
});

it('a page after the first takes its total from the cursor and sends no count', async () => {
  await withItems(async (pageOf) => {
    const first = await pageOf('rare', {});
    sent.length = 0;
    const second = await pageOf('rare', { cursor: first.nextCursor as string });
    expect(numbers(second)).toEqual([8000, 9000, 10000, 11000, 12000]);
    expect(second).toMatchObject({ page: 2, total: 18, totalExact: true, totalPages: 4 });
    // The walk (8,000 and 9,000 among its 2,500 rows: too few) and then the page's rows alone.
    expect(reads().filter((s) => s.includes('__matched'))).toHaveLength(1);
    expect(
      reads().filter((s) => /__total|count\(\*\)/.test(s) && !s.includes('__matched')),
    ).toEqual([]);

    // Past the last match the cursor still gives the total, with no count of its own.
    const third = await pageOf('rare', { cursor: second.nextCursor as string });
    sent.length = 0;
    const fourth = await pageOf('rare', { cursor: third.nextCursor as string });
    expect(numbers(fourth)).toEqual([18000, 19000, 20000]);
    expect(fourth).toMatchObject({ page: 4, total: 18, nextCursor: null });
    expect(reads().filter((s) => s.includes('__total'))).toEqual([]);
  });
});
