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
const list = (who: Owner, query: string) =>
  request(stack.url).get(`/api/crm/leads?${query}`).set('Cookie', who.cookie);

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
    // Contacts of the owner: a contact list cursor must not be one of the lead list.
    for (const email of ['c1@example.com', 'c2@example.com']) {
      const res = await request(stack.url)
        .post('/api/crm/contacts')
        .set('Cookie', owner.cookie)
        .send({ email });
      expect(res.status).toBe(201);
    }
  });

  // The contract every cursor list keeps (libs/test-kit): every sort walked both ways, the
  // status filter kept, other sorts', filters', tenants' and lists' cursors (the contact list's)
  // refused.
  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => '/api/crm/leads',
    owner: () => owner.cookie,
    other: () => other.cookie,
    rows: 23,
    sorts: ['created_at', 'email', 'status', 'source'],
    filter: { query: 'status=qualified', rows: 12 },
    otherList: () => '/api/crm/contacts?sortBy=email&sortOrder=asc&pageSize=1',
  });

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

  itCapsItsCountPast10000({
    url: () => stack.url,
    path: '/api/crm/leads',
    owner: () => owner.cookie,
    column: 'email',
    name: (n) => `bulk${n}@example.com`,
    filterOf30: 'status=lost',
  });
});
