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
  items: Array<{ id: string; email: string | null; last_name: string | null }>;
  total: number;
  totalExact: boolean;
  page: number;
  pageSize: number;
  totalPages: number;
  nextCursor: string | null;
}

const list = (who: Owner, query: string) =>
  request(stack.url).get(`/api/crm/contacts?${query}`).set('Cookie', who.cookie);

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

describe('GET /api/crm/contacts by cursor', () => {
  let owner: Owner;
  let other: Owner;

  beforeAll(async () => {
    owner = await tenantSession(stack, database);
    other = await tenantSession(stack, database);
    // 23 contacts: 16 with an email (c00..c15), 7 with only a phone; last names from three, and
    // none on every fourth, so sort keys are shared (ties broken by id) and some are NULL.
    for (const who of [owner, other]) {
      for (let n = 0; n < 23; n++) {
        const res = await request(stack.url)
          .post('/api/crm/contacts')
          .set('Cookie', who.cookie)
          .send({
            ...(n < 16 ? { email: `c${String(n).padStart(2, '0')}@example.com` } : {}),
            phone: `+1555010${String(n).padStart(2, '0')}`,
            ...(n % 4 === 0 ? {} : { last_name: ['Ames', 'Baker', 'Cole'][n % 3] }),
          });
        expect(res.status).toBe(201);
      }
    }
  });

  for (const [sortBy, sortOrder] of [
    ['created_at', 'desc'],
    ['created_at', 'asc'],
    ['email', 'asc'],
    ['email', 'desc'],
    ['last_name', 'asc'],
    ['last_name', 'desc'],
  ] as const) {
    it(`walking nextCursor by ${sortBy} ${sortOrder} yields every contact once, in the order of one big page`, async () => {
      const query = `sortBy=${sortBy}&sortOrder=${sortOrder}`;
      const whole = (await list(owner, `${query}&pageSize=100`)).body as ListBody;
      expect(whole.items).toHaveLength(23);
      expect(whole).toMatchObject({ total: 23, totalExact: true, nextCursor: null });
      const pages = await walk(owner, `${query}&pageSize=5`);
      expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
      expect(pages.map((p) => p.items.length)).toEqual([5, 5, 5, 5, 3]);
      expect(pages.every((p) => p.total === 23 && p.totalExact && p.totalPages === 5)).toBe(true);
      const walked = pages.flatMap((p) => p.items.map((c) => c.id));
      expect(new Set(walked).size).toBe(23);
      expect(walked).toEqual(whole.items.map((c) => c.id));
    });
  }

  it('contacts without the sort column come last ascending and first descending', async () => {
    for (const sortBy of ['email', 'last_name'] as const) {
      const asc = (await list(owner, `sortBy=${sortBy}&sortOrder=asc&pageSize=100`))
        .body as ListBody;
      const desc = (await list(owner, `sortBy=${sortBy}&sortOrder=desc&pageSize=100`))
        .body as ListBody;
      const blanks = sortBy === 'email' ? 7 : 6;
      expect(asc.items.slice(-blanks).every((c) => c[sortBy] === null)).toBe(true);
      expect(asc.items.slice(0, -blanks).every((c) => c[sortBy] !== null)).toBe(true);
      expect(desc.items.slice(0, blanks).every((c) => c[sortBy] === null)).toBe(true);
      expect(desc.items.slice(blanks).every((c) => c[sortBy] !== null)).toBe(true);
    }
  });

  it('a cursor keeps the q it was issued with', async () => {
    const pages = await walk(owner, 'q=c1&sortBy=email&sortOrder=asc&pageSize=2');
    expect(pages.flatMap((p) => p.items.map((c) => c.email))).toEqual(
      Array.from({ length: 6 }, (_, i) => `c1${i}@example.com`),
    );
    expect(pages.every((p) => p.total === 6 && p.totalExact)).toBe(true);
  });

  it('a cursor with another sortBy, sortOrder or q is a 400 saying so', async () => {
    const first = (await list(owner, 'sortBy=email&sortOrder=asc&pageSize=5')).body as ListBody;
    const cursor = encodeURIComponent(first.nextCursor as string);
    for (const query of [
      `sortBy=created_at&sortOrder=asc&pageSize=5&cursor=${cursor}`,
      `sortBy=email&sortOrder=desc&pageSize=5&cursor=${cursor}`,
      `sortBy=email&sortOrder=asc&q=c1&pageSize=5&cursor=${cursor}`,
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
    expect(res.body.items[0].email).toBe('c05@example.com');
  });

  it('an altered cursor, or one issued to another tenant, is a 400 saying so', async () => {
    const mine = (await list(owner, 'sortBy=email&sortOrder=asc&pageSize=5')).body as ListBody;
    const theirs = (await list(other, 'sortBy=email&sortOrder=asc&pageSize=5')).body as ListBody;
    const cursor = mine.nextCursor as string;
    const [body, signature] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const edited = (change: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify({ ...payload, ...change })).toString('base64url')}.${signature}`;
    for (const bad of [
      edited({ k: 'c00@example.com' }),
      edited({ k: null }),
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
    // Another tenant's cursor is not theirs: ours, with the same sort, is served.
    expect(
      (await list(owner, `sortBy=email&sortOrder=asc&cursor=${encodeURIComponent(cursor)}`)).status,
    ).toBe(200);
  });

  it('a lead list cursor is not a contact list cursor', async () => {
    const leads = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', owner.cookie)
      .send({ leads: Array.from({ length: 3 }, (_, n) => ({ email: `lead${n}@example.com` })) });
    expect(leads.status).toBe(200);
    const leadPage = await request(stack.url)
      .get('/api/crm/leads?sortBy=email&sortOrder=asc&pageSize=1')
      .set('Cookie', owner.cookie);
    const res = await list(
      owner,
      `sortBy=email&sortOrder=asc&cursor=${encodeURIComponent(leadPage.body.nextCursor)}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
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

describe('GET /api/crm/contacts past 10,000 contacts', () => {
  let owner: Owner;

  beforeAll(async () => {
    owner = await tenantSession(stack, database);
    await withTenant(database.db, owner.tenantId, (trx) =>
      sql`
        INSERT INTO crm_contacts (tenant_id, email, created_at)
        SELECT ${owner.tenantId}::uuid,
               CASE WHEN n <= 30 THEN 'few' ELSE 'bulk' END || n || '@example.com',
               now() - n * interval '1 second'
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
    expect(res.body.items[0].email).toBe('few1@example.com');
    expect(typeof res.body.nextCursor).toBe('string');
  });

  it('a q with fewer contacts gets its exact count', async () => {
    const res = await list(owner, 'q=few&pageSize=50');
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
    expect(next.body.items.map((c: { email: string }) => c.email)).toEqual(
      served.body.items.map((c: { email: string }) => c.email),
    );
    expect(next.body.items).toHaveLength(50);
  });
});
