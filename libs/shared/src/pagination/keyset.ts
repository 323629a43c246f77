import { sql, type QueryExecutorProvider, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { hmac, safeEqual, sha256Hex } from '../crypto';
import { errors } from '../errors';
import { validate } from '../http/validate';
import { pageQuerySchema, type PageOptions, type PageQuery } from './page-query';
import type { Page } from './paginate';
import type { SortKey } from './sort-key';
import { readSearchMatches } from './read-search-matches';
import { walkForSearch } from './walk-for-search';

/**
 * Rows counted exactly per list request. Beyond it `total` is this number and `totalExact` is
 * false: counting a million rows on every page costs seconds, and an estimate shown as a count
 * would be a lie.
 */
export const COUNT_LIMIT = 10_000;
/** Deepest row a `page` may start at; deeper pages are reached with `cursor` (keyset). */
export const MAX_OFFSET = 10_000;
/** Longest `cursor` accepted (the ones we issue are about 200 characters). */
const MAX_CURSOR_LENGTH = 1000;

/** A page of a list that also pages by keyset: the specified Page, `totalExact` and `nextCursor`. */
export interface CursorPage<T> extends Page<T> {
  /**
   * False when `total` is a lower bound: there are more than COUNT_LIMIT rows, or a search
   * matched so many rows that its page was found by walking the list (walkForSearch), and
   * `total` is the matches among the rows walked.
   */
  totalExact: boolean;
  /** Pass as `cursor` for the page after this one; null on the last page. */
  nextCursor: string | null;
}

export interface CursorPageQuery<S extends string> extends PageQuery<S> {
  cursor?: string;
}

export type { SortKey } from './sort-key';

/**
 * What a cursor is bound to besides the sort: the caller's scope (the tenant) and the filters.
 * The cursor is HMAC-signed with `secret` over itself and the scope, so an edited cursor or one
 * of another tenant is refused; the filters' hash in it refuses one used with other filters.
 */
export interface CursorBinding {
  secret: string;
  scope: string;
  filters: Record<string, unknown>;
}

/**
 * The binding of one list's cursors: the scope is the list's name and the tenant, so a cursor
 * of one list is refused by every other list (and by the same list of another tenant) as an
 * altered one, whatever their sorts and filters have in common.
 */
export function listCursorBinding(
  secret: string,
  list: string,
  tenantId: string,
  filters: Record<string, unknown> = {},
): CursorBinding {
  return { secret, scope: `${list} ${tenantId}`, filters: { ...filters } };
}

interface CursorPayload {
  /** Sort column, order and the filters' hash the cursor was issued for. */
  s: string;
  o: 'asc' | 'desc';
  f: string;
  /** The page number it leads to. */
  p: number;
  /** The last row's sort key (as text; null when it is NULL) and id. */
  k: string | null;
  i: string;
  /** A search's total and whether it is exact, counted on its first page. */
  t?: number;
  x?: boolean;
}

const payloadSchema = z.object({
  s: z.string(),
  o: z.enum(['asc', 'desc']),
  f: z.string(),
  p: z.number().int().min(2),
  k: z.string().nullable(),
  i: z.string().max(100),
  t: z.number().int().min(0).max(COUNT_LIMIT).optional(),
  x: z.boolean().optional(),
});

const CURSOR_ERRORS = {
  combined: 'Invalid pagination parameters: give either page or cursor, not both',
  altered:
    'Invalid cursor: it is malformed, was altered, or was issued for another tenant; start again from page 1',
  otherList:
    'Invalid cursor: it was issued for another sortBy, sortOrder or filters; repeat the request with those of the page that returned it, or start again from page 1',
  tooDeep: (max: number) =>
    `Invalid pagination parameters: page and pageSize reach past row ${max.toLocaleString('en-US')}; follow nextCursor to read further, or reverse sortOrder to read the end`,
};

/** pageQuerySchema and `cursor` (also used for OpenAPI). */
export function cursorPageQuerySchema<S extends string>(options: PageOptions<S>) {
  return pageQuerySchema(options).extend({
    cursor: z
      .string({ message: 'cursor must be a string' })
      .min(1, { message: 'cursor must not be empty' })
      .max(MAX_CURSOR_LENGTH, { message: 'cursor is too long' })
      .optional()
      .meta({
        description:
          'nextCursor of the previous page: the page after it (by keyset). Not with page.',
      }),
  });
}

/**
 * Reads `page`, `pageSize`, `sortBy`, `sortOrder` and `cursor`; 400 VALIDATION_ERROR for bad
 * values, for `page` together with `cursor`, and for a page starting past MAX_OFFSET rows.
 */
export function parseCursorPageQuery<S extends string>(
  query: unknown,
  options: PageOptions<S>,
): CursorPageQuery<S> {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const schema = cursorPageQuerySchema(options);
  const picked = {
    page: q.page,
    pageSize: q.pageSize,
    sortBy: q.sortBy,
    sortOrder: q.sortOrder,
    cursor: q.cursor,
  };
  const parsed = validate(schema, picked, 'pagination parameters') as CursorPageQuery<S>;
  if (parsed.cursor !== undefined && q.page !== undefined) {
    throw errors.validation(CURSOR_ERRORS.combined);
  }
  if ((parsed.page - 1) * parsed.pageSize > MAX_OFFSET) {
    throw errors.validation(CURSOR_ERRORS.tooDeep(MAX_OFFSET));
  }
  return parsed;
}

/** A stable hash of the filters (keys sorted, undefined left out). */
function filtersHash(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(JSON.stringify(entries)).slice(0, 16);
}

function signature(binding: CursorBinding, body: string): string {
  return hmac('sha256', binding.secret, `page-cursor\n${binding.scope}\n${body}`, 'base64url');
}

function encodeCursor(binding: CursorBinding, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${signature(binding, body)}`;
}

function decodeCursor(
  binding: CursorBinding,
  cursor: string,
  page: PageQuery<string>,
): CursorPayload {
  const [body, signed, extra] = cursor.split('.');
  if (extra !== undefined || !body || !signed || !safeEqual(signed, signature(binding, body))) {
    throw errors.validation(CURSOR_ERRORS.altered);
  }
  let payload: CursorPayload;
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString()));
    if (!parsed.success) throw new Error('not a cursor');
    payload = parsed.data;
  } catch {
    throw errors.validation(CURSOR_ERRORS.altered);
  }
  if (
    payload.s !== page.sortBy ||
    payload.o !== page.sortOrder ||
    payload.f !== filtersHash(binding.filters)
  ) {
    throw errors.validation(CURSOR_ERRORS.otherList);
  }
  return payload;
}

/**
 * The conditions of the rows after the cursor's row, in list order: each one range of an index
 * (tenant_id, key, tiebreak) read forwards (asc) or backwards (desc). A key that is never NULL
 * is one row comparison. A nullable key sorts its NULLs last ascending and first descending, and
 * a row comparison never holds for a NULL, so: ascending after a value, the greater values and
 * then the NULLs; ascending after a NULL, the NULLs with a greater id; descending after a value,
 * the smaller values; descending after a NULL, the NULLs with a smaller id and then the values.
 */
function rangesAfter(
  key: SortKey,
  tiebreak: RawBuilder<unknown>,
  order: 'asc' | 'desc',
  after: CursorPayload,
): Array<RawBuilder<boolean>> {
  const op = sql.raw(order === 'asc' ? '>' : '<');
  const id = sql`CAST(${after.i} AS uuid)`;
  if (after.k !== null) {
    const value = sql`CAST(${after.k} AS ${sql.raw(key.type)})`;
    const compared = sql<boolean>`(${key.expression}, ${tiebreak}) ${op} (${value}, ${id})`;
    if (key.nullable && order === 'asc') {
      return [compared, sql<boolean>`${key.expression} IS NULL`];
    }
    return [compared];
  }
  if (!key.nullable) throw errors.validation(CURSOR_ERRORS.altered);
  const nulls = sql<boolean>`${key.expression} IS NULL AND ${tiebreak} ${op} ${id}`;
  return order === 'asc' ? [nulls] : [nulls, sql<boolean>`${key.expression} IS NOT NULL`];
}

/**
 * One page of `query`, by offset (`page`) or by keyset (`cursor`), ordered by the sort key and
 * then `tiebreak` in the same direction, so an index on (..., key, tiebreak) serves both the
 * order and the cursor's `(key, tiebreak) > (last key, last id)`. For a nullable key the page
 * that crosses between the values and the NULLs reads two ranges, one statement each (see
 * rangesAfter). `total` is exact up to COUNT_LIMIT (a count over at most COUNT_LIMIT + 1 rows, in
 * the same statement as the page, so both see one snapshot; the first statement's count when
 * there are two); beyond, it is COUNT_LIMIT with `totalExact: false`. The page reads
 * pageSize + 1 rows: the extra one only tells whether there is a next page.
 *
 * `query` must select `tiebreak` (as a column of that name) and carry every filter but a text
 * search, given as `search`; `executor` is the transaction it runs in. A search counts on its
 * first page, and its cursors carry that count.
 */
export async function paginateByKeyset<DB, TB extends keyof DB, O>(
  executor: QueryExecutorProvider,
  query: SelectQueryBuilder<DB, TB, O>,
  page: CursorPageQuery<string>,
  options: {
    sortKeys: Record<string, SortKey>;
    tiebreak: string;
    binding: CursorBinding;
    /** Whether `query` carries filters beyond the scope (the tenant). */
    filtered: boolean;
    /**
     * A text search's condition, not applied to `query`: the page first walks the sort's index
     * (walkForSearch) and falls back to `query` with the condition for a search that matches
     * few rows, which its own index serves.
     */
    search?: RawBuilder<boolean>;
    /**
     * Added with `search` when the walk did not settle the page: a condition that the search's
     * own index serves when `search` itself cannot (a search index kept apart from the rows,
     * whose candidates `search` re-checks).
     */
    searchIndex?: RawBuilder<boolean>;
  },
): Promise<CursorPage<O>> {
  const key = options.sortKeys[page.sortBy];
  if (!key) throw new Error(`no sort key for ${page.sortBy}`);
  const tiebreak: RawBuilder<unknown> = sql.ref(options.tiebreak);
  const tiebreakName = options.tiebreak.split('.').pop() as string;
  const after = page.cursor ? decodeCursor(options.binding, page.cursor, page) : undefined;
  const pageNumber = after ? after.p : page.page;
  // A search counts on its first page only; its cursors carry that count to the next pages.
  const carried = options.search && after?.t !== undefined;
  const pageOf = (rows: Array<O & { __key: string | null }>, total: number, totalExact: boolean) =>
    toCursorPage(rows, {
      page,
      pageNumber,
      total: carried ? (after?.t as number) : total,
      totalExact: carried ? after?.x === true : totalExact,
      carryTotal: Boolean(options.search),
      tiebreakName,
      binding: options.binding,
    });

  // Set when a search is known to match more than COUNT_LIMIT rows: nothing left to count.
  let overLimit = false;
  if (options.search) {
    const ranges = after ? rangesAfter(key, tiebreak, page.sortOrder, after) : [undefined];
    // Page numbers without a cursor past the first: the walk cannot skip the pages before.
    if (ranges.length === 1 && (after || page.page === 1)) {
      const walked = await walkForSearch(executor, query, {
        key,
        tiebreak,
        order: page.sortOrder,
        range: ranges[0],
        search: options.search,
        wanted: page.pageSize + 1,
      });
      if (walked) {
        // The matches walked: every one when the walk reached the end, else a lower bound.
        const exact = walked.exhausted && walked.matched <= COUNT_LIMIT;
        return pageOf(walked.rows, Math.min(walked.matched, COUNT_LIMIT), exact);
      }
    }
    query = query.where(options.search);
    if (options.searchIndex) query = query.where(options.searchIndex);
    if (!carried && !after) {
      const found = await readSearchMatches(executor, query, {
        key,
        tiebreakName,
        order: page.sortOrder,
        countLimit: COUNT_LIMIT,
        limit: page.pageSize + 1,
        offset: (page.page - 1) * page.pageSize,
      });
      if (found) return pageOf(found.rows, found.total, true);
      overLimit = true;
    }
  }

  // Unfiltered, the count follows the sort's index (else Postgres may scan the table until it
  // has seen COUNT_LIMIT + 1 of the tenant's rows); filtered, Postgres picks the filter's index.
  // By the sort key alone, not the tie-break: a unique key's index (leads' email) has no id,
  // and ordering by it too cost an incremental sort over 10,001 heap rows (84 ms at 1,000,000
  // leads, measured by the scale benchmark).
  let counted = query.clearSelect().select(sql<number>`1`.as('one'));
  if (!options.filtered) counted = counted.orderBy(key.expression, page.sortOrder);
  counted = counted.limit(COUNT_LIMIT + 1);
  const keyed = query.select(sql<string | null>`(${key.expression})::text`.as('__key'));
  // A search's later page has its count in the cursor: counting again (up to 10,001 matches
  // through the search's index) would be thrown away.
  const rowsQuery =
    carried || overLimit
      ? keyed
      : keyed.select(sql<string>`(SELECT count(*) FROM (${counted}) AS counted)`.as('__total'));
  const rows = (await readRows(rowsQuery, key, tiebreak, page.sortOrder, after, {
    limit: page.pageSize + 1,
    offset: after ? 0 : (page.page - 1) * page.pageSize,
  })) as Array<O & { __key: string | null; __total?: string }>;

  // Past the last page there is no row to carry the count: count on its own.
  const countAlone = async () => {
    const { rows: n } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM (${counted}) AS counted`.execute(executor);
    return Number(n[0]?.n ?? 0);
  };
  // pageOf takes a carried count from the cursor.
  const counting = carried
    ? 0
    : overLimit
      ? COUNT_LIMIT + 1
      : rows.length > 0
        ? Number(rows[0].__total)
        : await countAlone();
  return pageOf(rows, Math.min(counting, COUNT_LIMIT), counting <= COUNT_LIMIT);
}

/**
 * The page from the rows read (pageSize + 1 at most: the extra one only says there is a next
 * page), with its cursor to the next one.
 */
function toCursorPage<O>(
  rows: Array<O & { __key: string | null }>,
  context: {
    page: CursorPageQuery<string>;
    pageNumber: number;
    total: number;
    totalExact: boolean;
    /** Whether the next page's cursor carries total and totalExact (a search's do). */
    carryTotal: boolean;
    tiebreakName: string;
    binding: CursorBinding;
  },
): CursorPage<O> {
  const { page, pageNumber, total, totalExact, tiebreakName } = context;
  const { items, nextCursor } = cut<O>(rows, page.pageSize, (last) =>
    encodeCursor(context.binding, {
      s: page.sortBy,
      o: page.sortOrder,
      f: filtersHash(context.binding.filters),
      p: pageNumber + 1,
      k: last.__key,
      i: String(last[tiebreakName]),
      ...(context.carryTotal ? { t: total, x: totalExact } : {}),
    }),
  );
  return {
    items,
    total,
    totalExact,
    page: pageNumber,
    pageSize: page.pageSize,
    totalPages: Math.ceil(total / page.pageSize),
    nextCursor,
  };
}

/**
 * Up to `limit` rows of `rowsQuery` in list order, from `offset`, or after the cursor's row:
 * one index range, or, for a nullable key, up to two read one after the other (each a range of
 * the index, in its order).
 */
async function readRows<DB, TB extends keyof DB, O>(
  rowsQuery: SelectQueryBuilder<DB, TB, O>,
  key: SortKey,
  tiebreak: RawBuilder<unknown>,
  order: 'asc' | 'desc',
  after: CursorPayload | undefined,
  window: { limit: number; offset: number },
): Promise<O[]> {
  const ranges = after ? rangesAfter(key, tiebreak, order, after) : [undefined];
  const rows: O[] = [];
  for (const range of ranges) {
    const wanted = window.limit - rows.length;
    if (wanted <= 0) break;
    const ranged = range ? rowsQuery.where(range) : rowsQuery;
    const read = (await ranged
      .orderBy(key.expression, order)
      .orderBy(tiebreak, order)
      .limit(wanted)
      .offset(window.offset)
      .execute()) as O[];
    rows.push(...read);
  }
  return rows;
}

/**
 * The first `size` of `rows` (read one more than shown: the extra one only tells whether there
 * is more) without the helper's columns, and the cursor after the last shown, null when none.
 */
function cut<O>(
  rows: Array<Record<string, unknown>>,
  size: number,
  cursorAfter: (last: Record<string, unknown> & { __key: string | null }) => string,
): { items: O[]; nextCursor: string | null } {
  const shown = rows.slice(0, size);
  const last = shown[shown.length - 1] as
    (Record<string, unknown> & { __key: string | null }) | undefined;
  const nextCursor = rows.length > size && last ? cursorAfter(last) : null;
  const items = shown.map((row) => {
    const { __key: _key, __total: _total, __n: _n, ...item } = row;
    return item as O;
  });
  return { items, nextCursor };
}

/** What a slice of a list without pages asks for: how many rows, in which order, after what. */
export interface CursorSliceQuery<S extends string> {
  limit: number;
  sortBy: S;
  sortOrder: 'asc' | 'desc';
  cursor?: string;
}

/**
 * The first `limit` rows of `query` in the sort key's order, or those after `cursor`, with the
 * cursor after the last one (null when there are no more): keyset paging for a list that
 * answers no page number and no count (the deals list's `{ deals }`). The cursor is signed and
 * bound as paginateByKeyset's are, and refused the same way.
 */
export async function sliceByKeyset<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  slice: CursorSliceQuery<string>,
  options: { sortKeys: Record<string, SortKey>; tiebreak: string; binding: CursorBinding },
): Promise<{ items: O[]; nextCursor: string | null }> {
  const key = options.sortKeys[slice.sortBy];
  if (!key) throw new Error(`no sort key for ${slice.sortBy}`);
  const tiebreak: RawBuilder<unknown> = sql.ref(options.tiebreak);
  const tiebreakName = options.tiebreak.split('.').pop() as string;
  const page = { page: 1, pageSize: slice.limit, sortBy: slice.sortBy, sortOrder: slice.sortOrder };
  const after = slice.cursor ? decodeCursor(options.binding, slice.cursor, page) : undefined;
  const rowsQuery = query.select(sql<string | null>`(${key.expression})::text`.as('__key'));
  const rows = await readRows(rowsQuery, key, tiebreak, slice.sortOrder, after, {
    limit: slice.limit + 1,
    offset: 0,
  });
  return cut<O>(rows as Array<Record<string, unknown>>, slice.limit, (last) =>
    encodeCursor(options.binding, {
      s: slice.sortBy,
      o: slice.sortOrder,
      f: filtersHash(options.binding.filters),
      p: (after?.p ?? 1) + 1,
      k: last.__key,
      i: String(last[tiebreakName]),
    }),
  );
}
