import { sql, type SelectQueryBuilder } from 'kysely';
import type { PageQuery } from './page-query';

/** A paginated result (specified: `items`, `total`, `page`, `pageSize`, `totalPages`). */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

export function toPage<T>(
  items: T[],
  total: number,
  query: { page: number; pageSize: number },
): Page<T> {
  return {
    items,
    total,
    page: query.page,
    pageSize: query.pageSize,
    totalPages: Math.ceil(total / query.pageSize),
  };
}

/**
 * Runs one page of `query` and its total. The total and the page come from one statement
 * (`count(*) over ()`), so they agree even while rows are being written. `sortBy` has already
 * been allow-listed by parsePageQuery; the primary key `tiebreak` keeps pages stable when
 * many rows share a sort value.
 */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageQuery<string>,
  tiebreak: string,
): Promise<Page<O>> {
  const rows = (await query
    .select(sql<string>`count(*) over ()`.as('__total'))
    .orderBy(sql.ref(page.sortBy), page.sortOrder)
    .orderBy(sql.ref(tiebreak), page.sortOrder)
    .limit(page.pageSize)
    .offset((page.page - 1) * page.pageSize)
    .execute()) as Array<O & { __total: string }>;
  let total: number;
  if (rows.length > 0) {
    total = Number(rows[0].__total);
  } else if (page.page === 1) {
    total = 0;
  } else {
    // Past the last page there are no rows to carry the window count: count separately.
    const counted = await query
      .clearSelect()
      .select(sql<string>`count(*)`.as('n'))
      .executeTakeFirst();
    total = Number((counted as { n: string } | undefined)?.n ?? 0);
  }
  const items = rows.map((row) => {
    const { __total: _ignored, ...item } = row;
    return item as O;
  });
  return toPage(items, total, page);
}
