export {
  pageQuerySchema,
  parsePageQuery,
  MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
  type PageQuery,
  type PageOptions,
} from './page-query';
export { paginate, toPage, type Page } from './paginate';
export {
  paginateByKeyset,
  sliceByKeyset,
  parseCursorPageQuery,
  listCursorBinding,
  cursorPageQuerySchema,
  COUNT_LIMIT,
  MAX_OFFSET,
  type CursorPage,
  type CursorPageQuery,
  type CursorSliceQuery,
  type CursorBinding,
  type SortKey,
} from './keyset';
export { timeRangeFields, timeRangeSchema, type TimeRange } from './time-range';
