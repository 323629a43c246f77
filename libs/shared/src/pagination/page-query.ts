import { z } from 'zod';
import { validate } from '../http/validate';

/** Largest page any list endpoint serves; a larger `pageSize` is a 400, not a silent clamp. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export interface PageOptions<S extends string> {
  /** Columns a client may sort by; anything else is a 400. */
  sortable: readonly [S, ...S[]];
  defaultSortBy: S;
  defaultSortOrder?: 'asc' | 'desc';
  defaultPageSize?: number;
}

export interface PageQuery<S extends string> {
  page: number;
  pageSize: number;
  sortBy: S;
  sortOrder: 'asc' | 'desc';
}

const wholeNumber = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a whole number` })
    .int({ message: `${name} must be a whole number` });

/**
 * The zod schema of the specified page parameters (`page`, `pageSize`, `sortBy`, `sortOrder`) for
 * one resource (also used for OpenAPI).
 */
export function pageQuerySchema<S extends string>(options: PageOptions<S>) {
  return z.object({
    page: wholeNumber('page').min(1, { message: 'page must be 1 or more' }).default(1),
    pageSize: wholeNumber('pageSize')
      .min(1, { message: 'pageSize must be 1 or more' })
      .max(MAX_PAGE_SIZE, { message: `pageSize must be at most ${MAX_PAGE_SIZE}` })
      .default(options.defaultPageSize ?? DEFAULT_PAGE_SIZE),
    sortBy: z
      .enum(options.sortable, { message: `sortBy must be one of: ${options.sortable.join(', ')}` })
      .default(options.defaultSortBy as never),
    sortOrder: z
      .enum(['asc', 'desc'], { message: 'sortOrder must be asc or desc' })
      .default(options.defaultSortOrder ?? 'desc'),
  });
}

/** Reads `page`, `pageSize`, `sortBy`, `sortOrder` from a query string; bad values -> 400 VALIDATION_ERROR. */
export function parsePageQuery<S extends string>(
  query: unknown,
  options: PageOptions<S>,
): PageQuery<S> {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const picked = { page: q.page, pageSize: q.pageSize, sortBy: q.sortBy, sortOrder: q.sortOrder };
  return validate(pageQuerySchema(options), picked, 'pagination parameters') as PageQuery<S>;
}
