import { AppError } from '@crm/shared/http';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  parsePageQuery,
  type PageOptions,
} from '@crm/shared/pagination';

type Sortable = 'created_at' | 'name';
const options: PageOptions<Sortable> = {
  sortable: ['created_at', 'name'],
  defaultSortBy: 'created_at',
};

/** The AppError parsePageQuery throws for `query`; fails the test when it does not throw one. */
function rejection(query: unknown, opts: PageOptions<Sortable> = options): AppError {
  try {
    parsePageQuery(query, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`parsePageQuery accepted ${JSON.stringify(query)}`);
}

describe('parsePageQuery', () => {
  it('has the documented limits', () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(DEFAULT_PAGE_SIZE).toBe(20);
  });

  it('defaults to page 1, 20 per page, the default sort, descending', () => {
    expect(parsePageQuery({}, options)).toEqual({
      page: 1,
      pageSize: 20,
      sortBy: 'created_at',
      sortOrder: 'desc',
    });
  });

  it('applies the resource defaults for page size and sort order', () => {
    expect(
      parsePageQuery(
        {},
        { sortable: ['name'], defaultSortBy: 'name', defaultSortOrder: 'asc', defaultPageSize: 50 },
      ),
    ).toEqual({ page: 1, pageSize: 50, sortBy: 'name', sortOrder: 'asc' });
  });

  it('treats a non-object query as empty', () => {
    expect(parsePageQuery(undefined, options)).toEqual(parsePageQuery({}, options));
    expect(parsePageQuery(null, options)).toEqual(parsePageQuery({}, options));
  });

  it('reads query-string values and ignores other parameters', () => {
    expect(
      parsePageQuery(
        { page: '3', pageSize: '100', sortBy: 'name', sortOrder: 'asc', filter: 'x' },
        options,
      ),
    ).toEqual({ page: 3, pageSize: 100, sortBy: 'name', sortOrder: 'asc' });
  });

  it('rejects pageSize 101 with 400 VALIDATION_ERROR naming the maximum of 100', () => {
    const err = rejection({ pageSize: '101' });
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe(
      'Invalid pagination parameters: pageSize: pageSize must be at most 100',
    );
    expect(err.details).toEqual({
      issues: [{ path: 'pageSize', message: 'pageSize must be at most 100', code: 'too_big' }],
    });
  });

  it('rejects a sortBy outside the allow-list, listing the allowed columns', () => {
    const err = rejection({ sortBy: 'password_hash' });
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual({
      issues: [
        {
          path: 'sortBy',
          message: 'sortBy must be one of: created_at, name',
          code: 'invalid_value',
        },
      ],
    });
  });

  it('rejects a SQL fragment as sortBy', () => {
    const err = rejection({ sortBy: 'name; drop table tenants' });
    expect(err.status).toBe(400);
    expect((err.details as { issues: Array<{ path: string }> }).issues[0].path).toBe('sortBy');
  });

  it.each(['ASC', 'up', 'random'])('rejects sortOrder %j', (sortOrder) => {
    const err = rejection({ sortOrder });
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual({
      issues: [
        { path: 'sortOrder', message: 'sortOrder must be asc or desc', code: 'invalid_value' },
      ],
    });
  });

  it.each([
    ['page 0', { page: '0' }, 'page', 'page must be 1 or more'],
    ['negative page', { page: '-2' }, 'page', 'page must be 1 or more'],
    ['pageSize 0', { pageSize: '0' }, 'pageSize', 'pageSize must be 1 or more'],
    ['non-numeric page', { page: 'abc' }, 'page', 'page must be a whole number'],
    ['fractional page', { page: '1.5' }, 'page', 'page must be a whole number'],
    ['non-numeric pageSize', { pageSize: 'ten' }, 'pageSize', 'pageSize must be a whole number'],
    ['repeated page (?page=1&page=2)', { page: ['1', '2'] }, 'page', 'page must be a whole number'],
  ])('rejects %s with 400 naming the parameter', (_name, query, path, message) => {
    const err = rejection(query);
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.error).toBe('Validation failed');
    expect(err.message).toBe(`Invalid pagination parameters: ${path}: ${message}`);
    expect((err.details as { issues: unknown[] }).issues).toEqual([
      { path, message, code: expect.any(String) },
    ]);
  });

  it('reports every bad parameter at once', () => {
    const err = rejection({ page: '0', pageSize: '500', sortBy: 'x', sortOrder: 'y' });
    const issues = (err.details as { issues: Array<{ path: string }> }).issues;
    expect(issues.map((i) => i.path).sort()).toEqual(['page', 'pageSize', 'sortBy', 'sortOrder']);
  });
});
