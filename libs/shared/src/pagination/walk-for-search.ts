import { sql, type QueryExecutorProvider, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { SortKey } from './sort-key';

/**
 * Rows of the sort's index a search walks before it leaves the page to the search's own index.
 * Walking this many costs a few milliseconds; a search matching at least one row in
 * WALK_ROWS / pageSize (2% at 50 a page) fills its page on the way.
 */
export const WALK_ROWS = 2500;

export interface Walked<O> {
  rows: Array<O & { __key: string | null }>;
  /** Matching rows among those walked (at most WALK_ROWS). */
  matched: number;
  /** Whether the walk reached the end of the list (so `matched` is every match after the start). */
  exhausted: boolean;
}

/**
 * A search's page read by walking the sort's index: the next WALK_ROWS rows in list order (after
 * the cursor's row when `range` is given), of which the matching ones make the page. Undefined
 * when that is not enough to know the page (the walk matched too few and the list goes on).
 *
 * Why walk first: a trigram index finds a rare term at once, but for a common one ("gmail")
 * it reads every match and sorts them all for one page (seconds at a million rows). The planner
 * would choose the sort's index for a common term if it knew the term was common, but it
 * cannot: under row-level security it may not read the column statistics for a condition that
 * is not leakproof (LIKE is not), and guesses a handful of rows for every term. So the walk
 * settles the common terms and the search's index serves the rest.
 */
export async function walkForSearch<DB, TB extends keyof DB, O>(
  executor: QueryExecutorProvider,
  query: SelectQueryBuilder<DB, TB, O>,
  walk: {
    key: SortKey;
    tiebreak: RawBuilder<unknown>;
    order: 'asc' | 'desc';
    range: RawBuilder<boolean> | undefined;
    search: RawBuilder<boolean>;
    /** pageSize + 1. */
    wanted: number;
  },
): Promise<Walked<O> | undefined> {
  const order = sql.raw(walk.order);
  // The walk keeps what it needs of each row (id, sort key, match, place) and reads the page's
  // full rows by id afterwards: carrying every column of 2,500 rows through the walk cost
  // about 40% of it (13.7 against 8 ms at 1,000,000 contacts).
  let walked = query
    .clearSelect()
    .select(sql<string>`${walk.tiebreak}`.as('__id'))
    .select(sql<string | null>`(${walk.key.expression})::text`.as('__key'))
    .select(walk.search.as('__match'))
    .select(
      sql<number>`row_number() OVER (ORDER BY ${walk.key.expression} ${order}, ${walk.tiebreak} ${order})`.as(
        '__n',
      ),
    );
  if (walk.range) walked = walked.where(walk.range);
  walked = walked
    .orderBy(walk.key.expression, walk.order)
    .orderBy(walk.tiebreak, walk.order)
    .limit(WALK_ROWS);
  const hit = query.where(sql<boolean>`${walk.tiebreak} = hits.__id`);
  // MATERIALIZED: the walk is read three times and must be the same rows each time.
  const { rows } = await sql<O & { __key: string | null; __walked: string; __matched: string }>`
    WITH walked AS MATERIALIZED (${walked}),
    hits AS MATERIALIZED (SELECT * FROM walked WHERE __match ORDER BY __n LIMIT ${walk.wanted})
    SELECT r.*, hits.__key, (SELECT count(*) FROM walked) AS __walked,
           (SELECT count(*) FROM walked WHERE __match) AS __matched
      FROM hits CROSS JOIN LATERAL (${hit}) r
     ORDER BY hits.__n`.execute(executor);
  if (rows.length === 0) return undefined;
  const exhausted = Number(rows[0].__walked) < WALK_ROWS;
  if (rows.length < walk.wanted && !exhausted) return undefined;
  const matched = Number(rows[0].__matched);
  return {
    rows: rows.map(({ __walked: _w, __matched: _c, ...row }) => row) as Walked<O>['rows'],
    matched,
    exhausted,
  };
}
