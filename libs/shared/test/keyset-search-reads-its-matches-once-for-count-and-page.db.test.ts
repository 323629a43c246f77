import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { COUNT_LIMIT, paginateByKeyset, type CursorPageQuery } from '@crm/shared/pagination';
import { testDb } from '@crm/shared/testing';

/*
 * A search the walk of the sort's index does not settle reads its matches once, for both its
 * count and its page. On a temporary table of 20,000 items, newest first: "rare" matches every
 * 1,000th item from the 3,000th (18, none among the 2,500 the walk reads), "old" every item
 * from the 5,000th (16,001: more than the count's limit, none among the 2,500 either).
 */
const ITEMS = 20_000;
const database = testDb();
const sent: CompiledQuery[] = [];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a temporary table has no schema type
const db = new Kysely<any>({
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

it('reads few matches once for count and page, and pages many in the sort order', async () => {
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

    const pageOf = (term: string, number: number) => {
      const page: CursorPageQuery<string> = {
        page: number,
        pageSize: 5,
        sortBy: 'created_at',
        sortOrder: 'desc',
      };
      return paginateByKeyset(trx, trx.selectFrom('items').select(['id', 'n', 'name']), page, {
        sortKeys: SORT_KEYS,
        tiebreak: 'id',
        binding: { secret: 'search matches test', scope: 'items', filters: { q: term } },
        filtered: true,
        search: sql<boolean>`name LIKE ${`%${term}%`}`,
      });
    };
    const reads = () => sent.map((q) => q.sql).filter((s) => !/^\s*(begin|commit)/i.test(s));

    sent.length = 0;
    const first = await pageOf('rare', 1);
    expect(first.items.map((i: { n: number }) => i.n)).toEqual([3000, 4000, 5000, 6000, 7000]);
    expect(first).toMatchObject({ total: 18, totalExact: true, totalPages: 4 });
    // The walk, then one statement that keeps the matches and both counts and pages them.
    expect(reads()).toHaveLength(2);
    expect(reads()[1]).toContain('WITH matched AS MATERIALIZED');

    // A page by number: the same single read, from its offset.
    const second = await pageOf('rare', 2);
    expect(second.items.map((i: { n: number }) => i.n)).toEqual([8000, 9000, 10000, 11000, 12000]);
    expect(second).toMatchObject({ page: 2, total: 18, totalExact: true });
    // Past the last match: no rows, the count still exact.
    const past = await pageOf('rare', 5);
    expect(past).toMatchObject({ items: [], total: 18, totalExact: true, nextCursor: null });

    sent.length = 0;
    const many = await pageOf('old', 1);
    // More matches than the count's limit: the page is read in the list's order, not among the
    // ones kept, and the total says it is a lower bound without counting again.
    expect(many.items.map((i: { n: number }) => i.n)).toEqual([5000, 5001, 5002, 5003, 5004]);
    expect(many).toMatchObject({ total: COUNT_LIMIT, totalExact: false });
    expect(reads()).toHaveLength(3);
    expect(reads()[2]).not.toMatch(/count\(\*\)/);
  });
});
