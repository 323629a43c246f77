import { withTenant } from '@crm/shared/db';
import {
  itCapsItsCountPast10000,
  itKeepsTheCursorContract,
  tenantSession,
  testDb,
} from '@crm/test-kit';
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
    // Leads of the owner: a lead list cursor must not be one of the contact list.
    const leads = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', owner.cookie)
      .send({ leads: Array.from({ length: 3 }, (_, n) => ({ email: `lead${n}@example.com` })) });
    expect(leads.status).toBe(200);
  });

  // The contract every cursor list keeps (libs/test-kit): every sort walked both ways, the q
  // filter kept, other sorts', filters', tenants' and lists' cursors (the lead list's) refused.
  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => '/api/crm/contacts',
    owner: () => owner.cookie,
    other: () => other.cookie,
    rows: 23,
    sorts: ['created_at', 'email', 'last_name'],
    filter: { query: 'q=c1', rows: 6 },
    otherList: () => '/api/crm/leads?sortBy=email&sortOrder=asc&pageSize=1',
  });

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

  itCapsItsCountPast10000({
    url: () => stack.url,
    path: '/api/crm/contacts',
    owner: () => owner.cookie,
    column: 'email',
    name: (n) => `${n <= 30 ? 'few' : 'bulk'}${n}@example.com`,
    filterOf30: 'q=few',
  });
});
