import { withTenant } from '@crm/shared/db';
import { tenantSession, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { useStack } from './support/stack';

const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Owner = Awaited<ReturnType<typeof tenantSession>>;
interface ListBody {
  items: Array<{ id: string; email: string; last_name: string | null }>;
  total: number;
  totalExact: boolean;
  page: number;
  pageSize: number;
  totalPages: number;
  nextCursor: string | null;
}

const list = (who: Owner, query: string) =>
  request(stack.url).get(`/api/crm/leads?${query}`).set('Cookie', who.cookie);

/** Every page of `query` by following nextCursor from the first. */
async function walk(who: Owner, query: string): Promise<ListBody[]> {
  const pages: ListBody[] = [];
  let res = await list(who, query);
  for (;;) {
    expect(res.status).toBe(200);
    pages.push(res.body as ListBody);
    const next = (res.body as ListBody).nextCursor;
    if (!next) return pages;
    res = await list(who, `${query}&cursor=${encodeURIComponent(next)}`);
  }
}

describe('GET /api/crm/leads by cursor', () => {
  let owner: Owner;
  let other: Owner;

  beforeAll(async () => {
    owner = await tenantSession(stack, database);
    other = await tenantSession(stack, database);
    // 23 leads; two statuses and three sources, so most sort keys are shared (ties broken by id).
    const leads = Array.from({ length: 23 }, (_, n) => ({
      email: `l${String(n).padStart(2, '0')}@example.com`,
      source: ['web', 'csv', 'referral'][n % 3],
      status: n % 2 === 0 ? 'qualified' : 'new',
    }));
    for (const who of [owner, other]) {
      const res = await request(stack.url)
        .post('/api/v1/import/leads')
        .set('Cookie', who.cookie)
        .send({ leads });
      expect(res.status).toBe(200);
    }
  });

  for (const [sortBy, sortOrder] of [
    ['created_at', 'desc'],
    ['created_at', 'asc'],
    ['email', 'asc'],
    ['status', 'desc'],
    ['source', 'asc'],
  ] as const) {
    it(`walking nextCursor by ${sortBy} ${sortOrder} yields every lead once, in the order of one big page`, async () => {
      const query = `sortBy=${sortBy}&sortOrder=${sortOrder}`;
      const whole = (await list(owner, `${query}&pageSize=100`)).body as ListBody;
      expect(whole.items).toHaveLength(23);
      expect(whole).toMatchObject({ total: 23, totalExact: true, nextCursor: null });
      const pages = await walk(owner, `${query}&pageSize=5`);
      expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
      expect(pages.map((p) => p.items.length)).toEqual([5, 5, 5, 5, 3]);
      expect(pages.every((p) => p.total === 23 && p.totalExact && p.totalPages === 5)).toBe(true);
      expect(pages.flatMap((p) => p.items.map((l) => l.id))).toEqual(whole.items.map((l) => l.id));
    });
  }

  it('the sorts without an index are withdrawn: a 400 naming the ones offered', async () => {
    for (const sortBy of ['last_name', 'first_name', 'updated_at']) {
      const res = await list(owner, `sortBy=${sortBy}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message:
          'Invalid pagination parameters: sortBy: sortBy must be one of: created_at, email, status, source',
      });
    }
  });

  it('a cursor keeps the filters it was issued with', async () => {
    const pages = await walk(owner, 'status=qualified&sortBy=email&sortOrder=asc&pageSize=5');
    const emails = pages.flatMap((p) => p.items.map((l) => l.email));
    expect(emails).toEqual(
      Array.from({ length: 12 }, (_, i) => `l${String(i * 2).padStart(2, '0')}@example.com`),
    );
  });

  it('a cursor with another sortBy, sortOrder or filter is a 400 saying so', async () => {
    const first = (await list(owner, 'sortBy=email&sortOrder=asc&pageSize=5')).body as ListBody;
    const cursor = encodeURIComponent(first.nextCursor as string);
    for (const query of [
      `sortBy=created_at&sortOrder=asc&pageSize=5&cursor=${cursor}`,
      `sortBy=email&sortOrder=desc&pageSize=5&cursor=${cursor}`,
      `sortBy=email&sortOrder=asc&status=new&pageSize=5&cursor=${cursor}`,
      `sortBy=email&sortOrder=asc&q=l1&pageSize=5&cursor=${cursor}`,
    ]) {
      const res = await list(owner, query);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        code: 'VALIDATION_ERROR',
        message:
          'Invalid cursor: it was issued for another sortBy, sortOrder or filters; repeat the request with those of the page that returned it, or start again from page 1',
      });
    }
    // The same cursor with its own sort and filters still works (a pageSize change is fine).
    const res = await list(owner, `sortBy=email&sortOrder=asc&pageSize=7&cursor=${cursor}`);
    expect(res.status).toBe(200);
    expect(res.body.items[0].email).toBe('l05@example.com');
  });

  it('an altered cursor, or one issued to another tenant, is a 400 saying so', async () => {
    const mine = (await list(owner, 'sortBy=email&sortOrder=asc&pageSize=5')).body as ListBody;
    const theirs = (await list(other, 'sortBy=email&sortOrder=asc&pageSize=5')).body as ListBody;
    const cursor = mine.nextCursor as string;
    const [body, signature] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const edited = Buffer.from(JSON.stringify({ ...payload, k: 'l00@example.com' })).toString(
      'base64url',
    );
    for (const bad of [
      `${edited}.${signature}`,
      `${body}.${signature.slice(1)}`,
      body,
      'not-a-cursor',
      `${body}.${signature}.x`,
    ]) {
      const res = await list(owner, `sortBy=email&sortOrder=asc&cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        'Invalid cursor: it is malformed, was altered, or was issued for another tenant; start again from page 1',
      );
    }
    const foreign = await list(
      owner,
      `sortBy=email&sortOrder=asc&cursor=${encodeURIComponent(theirs.nextCursor as string)}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('VALIDATION_ERROR');
    expect(foreign.body.message).toMatch(/issued for another tenant/);
  });

  it('page together with cursor is a 400', async () => {
    const first = (await list(owner, 'pageSize=5')).body as ListBody;
    const res = await list(
      owner,
      `page=2&cursor=${encodeURIComponent(first.nextCursor as string)}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid pagination parameters: give either page or cursor, not both',
    });
  });
});

describe('GET /api/crm/leads past 10,000 leads', () => {
  let owner: Owner;

  beforeAll(async () => {
    owner = await tenantSession(stack, database);
    await withTenant(database.db, owner.tenantId, (trx) =>
      sql`
        INSERT INTO crm_leads (tenant_id, email, status, created_at)
        SELECT ${owner.tenantId}::uuid, 'bulk' || n || '@example.com',
               CASE WHEN n <= 30 THEN 'lost' ELSE 'new' END, now() - n * interval '1 second'
          FROM generate_series(1, 10050) AS n`.execute(trx),
    );
  });

  it('counts exactly up to 10,000 and then says total is a lower bound', async () => {
    const res = await list(owner, 'pageSize=50');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 10_000,
      totalExact: false,
      page: 1,
      pageSize: 50,
      totalPages: 200,
    });
    expect(res.body.items[0].email).toBe('bulk1@example.com');
    expect(typeof res.body.nextCursor).toBe('string');
  });

  it('a filter with fewer rows gets its exact count', async () => {
    const res = await list(owner, 'status=lost&pageSize=50');
    expect(res.body).toMatchObject({
      total: 30,
      totalExact: true,
      totalPages: 1,
      nextCursor: null,
    });
  });

  it('a page starting past row 10,000 is a 400 pointing at the cursor; the one before it is served', async () => {
    const deep = await list(owner, 'page=202&pageSize=50');
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        'Invalid pagination parameters: page and pageSize reach past row 10,000; follow nextCursor to read further, or reverse sortOrder to read the end',
    });
    const served = await list(owner, 'page=201&pageSize=50');
    expect(served.status).toBe(200);
    expect(served.body.items[0].email).toBe('bulk10001@example.com');
    // The cursor of page 200 leads to the same rows, and on to the end.
    const before = await list(owner, 'page=200&pageSize=50');
    expect(before.body.items[49].email).toBe('bulk10000@example.com');
    const next = await list(
      owner,
      `pageSize=50&cursor=${encodeURIComponent(before.body.nextCursor)}`,
    );
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ page: 201, nextCursor: null });
    expect(next.body.items.map((l: { email: string }) => l.email)).toEqual(
      served.body.items.map((l: { email: string }) => l.email),
    );
    expect(next.body.items).toHaveLength(50);
  });
});
