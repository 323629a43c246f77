import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { paginateByKeyset, type CursorPageQuery } from '@crm/shared/pagination';
import { testDb } from '@crm/shared/testing';

/*
 * A search counts its matches on its first page and its cursors carry that count. A later page
 * the walk of the sort's index cannot fill (the matches are sparse there) falls back to the
 * search's own condition: it must read its rows without counting again, since the count it
 * would make (up to 10,001 matches) is thrown away for the cursor's.
 *
 * On a temporary table of 20,000 items, newest first, where every 1,000th from the 3,000th
 * matches: none among the 2,500 the first page walks, two among the 2,500 after page 1's last.
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
const binding = { secret: 'carried count test', scope: 'items', filters: { q: 'needle' } };

it('a fallen-back page after the first takes its total from the cursor and sends no count', async () => {
  await db.transaction().execute(async (trx) => {
    await sql`CREATE TEMPORARY TABLE items (id uuid PRIMARY KEY, n int NOT NULL, name text NOT NULL,
                created_at timestamptz NOT NULL) ON COMMIT DROP`.execute(trx);
    await sql`INSERT INTO items
      SELECT md5(n::text)::uuid, n, CASE WHEN n >= 3000 AND n % 1000 = 0 THEN 'needle ' || n ELSE 'hay ' || n END,
             timestamptz '2026-01-01' - n * interval '1 second'
        FROM generate_series(1, ${ITEMS}::int) AS n`.execute(trx);
    await sql`CREATE INDEX ON items (created_at, id)`.execute(trx);

    const pageOf = (cursor?: string) => {
      const page: CursorPageQuery<string> = {
        page: 1,
        pageSize: 5,
        sortBy: 'created_at',
        sortOrder: 'desc',
        ...(cursor ? { cursor } : {}),
      };
      return paginateByKeyset(trx, trx.selectFrom('items').select(['id', 'n', 'name']), page, {
        sortKeys: SORT_KEYS,
        tiebreak: 'id',
        binding,
        filtered: false,
        search: sql<boolean>`name LIKE '%needle%'`,
      });
    };

    const first = await pageOf();
    // 3,000 to 20,000 by thousands: 18 matches, counted exactly on the first page.
    expect(first.items.map((i: { n: number }) => i.n)).toEqual([3000, 4000, 5000, 6000, 7000]);
    expect(first).toMatchObject({ total: 18, totalExact: true, totalPages: 4 });

    sent.length = 0;
    const second = await pageOf(first.nextCursor as string);
    expect(second.items.map((i: { n: number }) => i.n)).toEqual([8000, 9000, 10000, 11000, 12000]);
    expect(second).toMatchObject({ page: 2, total: 18, totalExact: true, totalPages: 4 });
    // The walk (8,000 and 9,000 among its 2,500 rows: too few) and then the page's rows alone.
    const statements = sent.map((q) => q.sql);
    expect(statements.filter((s) => s.includes('__matched'))).toHaveLength(1);
    expect(statements.filter((s) => s.includes('__total'))).toEqual([]);
    expect(statements.filter((s) => /count\(\*\)/.test(s) && !s.includes('__matched'))).toEqual([]);

    // Past the last match the cursor still gives the total, with no count of its own.
    const third = await pageOf(second.nextCursor as string);
    sent.length = 0;
    const fourth = await pageOf(third.nextCursor as string);
    expect(fourth.items.map((i: { n: number }) => i.n)).toEqual([18000, 19000, 20000]);
    expect(fourth).toMatchObject({ page: 4, total: 18, nextCursor: null });
    expect(sent.filter((q) => q.sql.includes('__total'))).toEqual([]);
  });
});
