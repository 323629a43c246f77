import request from 'supertest';

/*
 * The contract every list that pages by keyset keeps (docs/api.md, CursorPage), as one set of
 * tests a list's e2e file registers with the list's own route and seeded rows: walking
 * nextCursor yields every row once in the order of one big page; a cursor is refused (400
 * VALIDATION_ERROR, saying why) when altered, another tenant's, another list's, or sent with
 * other sortBy, sortOrder or filters; another tenant's rows never show.
 */

/** The messages of the cursor refusals (libs/shared/src/pagination/keyset.ts). */
export const CURSOR_REFUSALS = {
  altered:
    'Invalid cursor: it is malformed, was altered, or was issued for another tenant; start again from page 1',
  otherList:
    'Invalid cursor: it was issued for another sortBy, sortOrder or filters; repeat the request with those of the page that returned it, or start again from page 1',
  combined: 'Invalid pagination parameters: give either page or cursor, not both',
} as const;

export interface CursorPageBody {
  items: Array<{ id: string } & Record<string, unknown>>;
  total: number;
  totalExact: boolean;
  page: number;
  pageSize: number;
  totalPages: number;
  nextCursor: string | null;
}

export interface CursorListContract {
  /** The gateway's URL (read when the tests run, after the stack started). */
  url: () => string;
  /** The list's path for the owner's tenant (a conversation's messages name its conversation). */
  path: () => string;
  /** Session cookies of the owner and of another tenant, each seeded with its own rows. */
  owner: () => string;
  other: () => string;
  /** The same list's path for the other tenant (when the path names one of its records). */
  otherPath?: () => string;
  /** How many rows the owner's list has: at least 7 (a walk of pages of 3 ends on a short one). */
  rows: number;
  /** The sorts to walk, each either way. */
  sorts: readonly string[];
  /**
   * A query string of a filter that keeps some of the owner's rows but not all, and how many:
   * a cursor of the unfiltered list is then refused with it.
   */
  filter?: { query: string; rows: number };
  /**
   * Another list's first page with a cursor, same tenant (a cursor of it must not be one of
   * this list), as `path?query`; left out where the service has no other cursor list.
   */
  otherList?: () => string;
  /**
   * The route shows each page of a descending sort in reverse (a conversation's messages read
   * oldest first within a page): the walk is compared page by page, each read backwards.
   */
  descPagesReadBackwards?: boolean;
}

const PAGE_SIZE = 3;

/** Registers the contract's tests for one list inside the caller's describe. */
export function itKeepsTheCursorContract(contract: CursorListContract): void {
  const get = (cookie: string, path: string, query: string) =>
    request(contract.url())
      .get(`${path}${path.includes('?') ? '&' : '?'}${query}`)
      .set('Cookie', cookie);
  const list = (query: string) => get(contract.owner(), contract.path(), query);

  async function walk(cookie: string, path: string, query: string): Promise<CursorPageBody[]> {
    const pages: CursorPageBody[] = [];
    let res = await get(cookie, path, query);
    for (;;) {
      expect(res.status).toBe(200);
      const body = res.body as CursorPageBody;
      pages.push(body);
      if (!body.nextCursor) return pages;
      expect(pages.length).toBeLessThanOrEqual(contract.rows);
      res = await get(cookie, path, `${query}&cursor=${encodeURIComponent(body.nextCursor)}`);
    }
  }

  /** The first page's nextCursor of the owner's list with `query`. */
  async function firstCursor(query: string): Promise<string> {
    const res = await list(`${query}&pageSize=${PAGE_SIZE}`);
    expect(res.status).toBe(200);
    expect(typeof res.body.nextCursor).toBe('string');
    return res.body.nextCursor as string;
  }

  const expectRefused = (res: request.Response, message: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', message });
  };

  const pagesOf = (rows: number) => Math.ceil(rows / PAGE_SIZE);

  for (const sortBy of contract.sorts) {
    for (const sortOrder of ['asc', 'desc'] as const) {
      it(`walking nextCursor by ${sortBy} ${sortOrder} yields every row once, in the order of one big page`, async () => {
        const query = `sortBy=${sortBy}&sortOrder=${sortOrder}`;
        const whole = (await list(`${query}&pageSize=100`)).body as CursorPageBody;
        expect(whole).toMatchObject({
          total: contract.rows,
          totalExact: true,
          page: 1,
          nextCursor: null,
        });
        expect(whole.items).toHaveLength(contract.rows);
        const pages = await walk(
          contract.owner(),
          contract.path(),
          `${query}&pageSize=${PAGE_SIZE}`,
        );
        const count = pagesOf(contract.rows);
        expect(pages.map((p) => p.page)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
        for (const p of pages) {
          expect(p).toMatchObject({
            total: contract.rows,
            totalExact: true,
            pageSize: PAGE_SIZE,
            totalPages: count,
          });
        }
        const backwards = sortOrder === 'desc' && contract.descPagesReadBackwards === true;
        const inListOrder = (items: CursorPageBody['items']) =>
          (backwards ? [...items].reverse() : items).map((row) => row.id);
        const walked = pages.flatMap((p) => inListOrder(p.items));
        expect(new Set(walked).size).toBe(contract.rows);
        expect(walked).toEqual(inListOrder(whole.items));
      });
    }
  }

  if (contract.filter) {
    const filter = contract.filter;
    it('a cursor keeps the filters it was issued with', async () => {
      const [sortBy] = contract.sorts;
      const query = `${filter.query}&sortBy=${sortBy}&sortOrder=asc`;
      const whole = (await list(`${query}&pageSize=100`)).body as CursorPageBody;
      expect(whole.items).toHaveLength(filter.rows);
      const pages = await walk(contract.owner(), contract.path(), `${query}&pageSize=2`);
      expect(pages.flatMap((p) => p.items.map((row) => row.id))).toEqual(
        whole.items.map((row) => row.id),
      );
      expect(pages.every((p) => p.total === filter.rows && p.totalExact)).toBe(true);
    });
  }

  it('a cursor sent with another sortBy, sortOrder or filters is a 400 saying so', async () => {
    const [sortBy] = contract.sorts;
    const cursor = encodeURIComponent(await firstCursor(`sortBy=${sortBy}&sortOrder=asc`));
    const others = [`sortBy=${sortBy}&sortOrder=desc&cursor=${cursor}`];
    const otherSort = contract.sorts.find((s) => s !== sortBy);
    if (otherSort) others.push(`sortBy=${otherSort}&sortOrder=asc&cursor=${cursor}`);
    if (contract.filter) {
      others.push(`${contract.filter.query}&sortBy=${sortBy}&sortOrder=asc&cursor=${cursor}`);
    }
    for (const query of others) expectRefused(await list(query), CURSOR_REFUSALS.otherList);
    // With its own sort and filters it is served (another pageSize is fine), from page 2.
    const res = await list(`sortBy=${sortBy}&sortOrder=asc&pageSize=2&cursor=${cursor}`);
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(2);
  });

  it("an altered cursor, another tenant's or another list's is a 400 saying so", async () => {
    const [sortBy] = contract.sorts;
    const query = `sortBy=${sortBy}&sortOrder=asc`;
    const cursor = await firstCursor(query);
    const [body, signature] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const edited = (change: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify({ ...payload, ...change })).toString('base64url')}.${signature}`;
    const theirs = await get(
      contract.other(),
      (contract.otherPath ?? contract.path)(),
      `${query}&pageSize=${PAGE_SIZE}`,
    );
    expect(typeof theirs.body.nextCursor).toBe('string');
    const foreign = [theirs.body.nextCursor as string];
    if (contract.otherList) {
      const otherList = await request(contract.url())
        .get(contract.otherList())
        .set('Cookie', contract.owner());
      expect(typeof otherList.body.nextCursor).toBe('string');
      foreign.push(otherList.body.nextCursor as string);
    }
    for (const bad of [
      edited({ p: 7 }),
      edited({ i: '00000000-0000-4000-8000-000000000000' }),
      `${body}.${signature.slice(1)}`,
      body,
      'not-a-cursor',
      `${body}.${signature}.x`,
      ...foreign,
    ]) {
      expectRefused(
        await list(`${query}&cursor=${encodeURIComponent(bad)}`),
        CURSOR_REFUSALS.altered,
      );
    }
  });

  it('page together with cursor is a 400', async () => {
    const cursor = encodeURIComponent(await firstCursor(''));
    expectRefused(await list(`page=2&cursor=${cursor}`), CURSOR_REFUSALS.combined);
  });

  it("another tenant's rows never show, by page or by cursor", async () => {
    const [sortBy] = contract.sorts;
    const query = `sortBy=${sortBy}&sortOrder=asc&pageSize=${PAGE_SIZE}`;
    const mine = await walk(contract.owner(), contract.path(), query);
    const theirs = await walk(contract.other(), (contract.otherPath ?? contract.path)(), query);
    const mineIds = new Set(mine.flatMap((p) => p.items.map((row) => row.id)));
    const theirIds = theirs.flatMap((p) => p.items.map((row) => row.id));
    expect(theirIds.length).toBeGreaterThan(0);
    expect(theirIds.filter((id) => mineIds.has(id))).toEqual([]);
  });
}
