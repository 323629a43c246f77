import request from 'supertest';

/*
 * What every list past 10,000 rows keeps (docs/api.md, `totalExact` and `page`), as one set of tests
 * a list's e2e file registers with its own route and seeded rows: the count is exact up to
 * 10,000 and then a flagged lower bound; a filter matching fewer rows is counted exactly; a page
 * starting past row 10,000 is a 400 pointing at the cursor, and the cursor of page 200 leads to
 * the same rows as page 201.
 */

export interface CountCapContract {
  /** The gateway's URL (read when the tests run, after the stack started). */
  url: () => string;
  path: string;
  /** The session cookie of the owner of the rows. */
  owner: () => string;
  /**
   * The owner's list holds 10,050 rows, the n-th newest (1 to 10,050) having `name(n)` as
   * `column`, so the newest-first list reads them in order of n.
   */
  column: string;
  name: (n: number) => string;
  /** A filter that keeps 30 of the rows, as a query string. */
  filterOf30: string;
}

/** The message of a page past row 10,000 (libs/shared/src/pagination/keyset.ts). */
const TOO_DEEP =
  'Invalid pagination parameters: page and pageSize reach past row 10,000; follow nextCursor to read further, or reverse sortOrder to read the end';

/** Registers the count cap's tests for one list inside the caller's describe. */
export function itCapsItsCountPast10000(contract: CountCapContract): void {
  const list = (query: string) =>
    request(contract.url()).get(`${contract.path}?${query}`).set('Cookie', contract.owner());
  const names = (body: { items: Array<Record<string, unknown>> }) =>
    body.items.map((row) => row[contract.column]);

  it('counts exactly up to 10,000 and then says total is a lower bound', async () => {
    const res = await list('pageSize=50');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 10_000,
      totalExact: false,
      page: 1,
      pageSize: 50,
      totalPages: 200,
    });
    expect(names(res.body)[0]).toBe(contract.name(1));
    expect(typeof res.body.nextCursor).toBe('string');
  });

  it('a filter with fewer rows gets its exact count', async () => {
    const res = await list(`${contract.filterOf30}&pageSize=50`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 30,
      totalExact: true,
      totalPages: 1,
      nextCursor: null,
    });
  });

  it('a page starting past row 10,000 is a 400 pointing at the cursor; the one before it is served', async () => {
    const deep = await list('page=202&pageSize=50');
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ code: 'VALIDATION_ERROR', message: TOO_DEEP });
    const served = await list('page=201&pageSize=50');
    expect(served.status).toBe(200);
    expect(names(served.body)[0]).toBe(contract.name(10_001));
    // The cursor of page 200 leads to the same rows, and on to the end.
    const before = await list('page=200&pageSize=50');
    expect(names(before.body)[49]).toBe(contract.name(10_000));
    const next = await list(`pageSize=50&cursor=${encodeURIComponent(before.body.nextCursor)}`);
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ page: 201, nextCursor: null });
    expect(names(next.body)).toEqual(names(served.body));
    expect(next.body.items).toHaveLength(50);
  });
}
