import { withSystemScope } from '@crm/shared/db';
import { outboxEvents, tenantSession, testDb } from '@crm/test-kit';
import request from 'supertest';
import { useStack } from './support/stack';

const database = testDb();
const stack = useStack({ IMPORT_MAX_ROWS: '50' });
afterAll(() => database.close());

function leadsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_leads')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('email')
      .execute(),
  );
}
function outboxOf(tenantId: string) {
  return outboxEvents(database, tenantId);
}
function jobsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx.selectFrom('import_jobs').selectAll().where('tenant_id', '=', tenantId).execute(),
  );
}

describe('POST /api/v1/import/leads (as specified, through the gateway)', () => {
  it('imports valid rows, skips and reports bad ones with exact texts, and answers 200', async () => {
    const { tenantId, userId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({
        leads: [
          {
            email: 'Ada@Example.com',
            first_name: 'Ada',
            company: 'Analytical Engines',
            lead_source: 'Web Form',
          },
          { first_name: 'No email' },
          { email: '   ' },
          { email: null },
          { email: 'not-an-email' },
          { email: 'grace@example.com', status: 'sleeping' },
          'just a string',
          {
            email: 'grace@example.com',
            status: 'Qualified',
            source: 'LinkedIn',
            custom_fields: { tier: 'gold' },
          },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      imported: 2,
      failed: 6,
      errors: [
        { index: 1, error: 'Email is required' },
        { index: 2, error: 'Email is required' },
        { index: 3, error: 'Email is required' },
        { index: 4, error: 'Invalid email' },
        {
          index: 5,
          error:
            'Invalid status "sleeping"; one of: new, contacted, qualified, unqualified, converted, lost',
        },
        { index: 6, error: 'Lead must be an object' },
      ],
      data: [
        { id: expect.any(String), email: 'ada@example.com', status: 'new', source: 'web_form' },
        {
          id: expect.any(String),
          email: 'grace@example.com',
          status: 'qualified',
          source: 'network',
        },
      ],
    });
    const rows = await leadsOf(tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        id: res.body.data[0].id,
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: null,
        phone: null,
        status: 'new',
        source: 'web_form',
        custom_fields: { company: 'Analytical Engines' },
      }),
      expect.objectContaining({
        id: res.body.data[1].id,
        email: 'grace@example.com',
        first_name: null,
        last_name: null,
        status: 'qualified',
        source: 'network',
        custom_fields: { tier: 'gold' },
      }),
    ]);
    const events = await outboxOf(tenantId);
    expect(events.map((e) => e.type)).toEqual(['lead.created', 'lead.created']);
    expect(events.map((e) => e.envelope.record.id)).toEqual(
      res.body.data.map((d: { id: string }) => d.id),
    );
    expect(await jobsOf(tenantId)).toEqual([
      expect.objectContaining({
        user_id: userId,
        kind: 'leads',
        status: 'completed',
        total: 8,
        imported: 2,
        failed: 6,
      }),
    ]);
  });

  it('defaults status to new and source to api_import', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({ leads: [{ email: 'plain@example.com' }] });
    expect(res.body.data).toEqual([
      { id: expect.any(String), email: 'plain@example.com', status: 'new', source: 'api_import' },
    ]);
    expect((await leadsOf(tenantId))[0]).toMatchObject({
      status: 'new',
      source: 'api_import',
      custom_fields: {},
    });
  });

  it('stores sources named like Object members (constructor, __proto__) as given, not as Object', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({
        leads: [
          { email: 'ctor@example.com', source: 'Constructor' },
          { email: 'proto@example.com', lead_source: 'toString' },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 2, failed: 0 });
    expect(res.body.data.map((lead: { source: string }) => lead.source)).toEqual([
      'constructor',
      'tostring',
    ]);
    const stored = await leadsOf(tenantId);
    expect(stored.map((lead) => lead.source).sort()).toEqual(['constructor', 'tostring']);
  });

  it('answers 200 with failed = all when every row fails, writing no lead', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({ leads: [{}, { email: 'x' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      imported: 0,
      failed: 2,
      errors: [
        { index: 0, error: 'Email is required' },
        { index: 1, error: 'Invalid email' },
      ],
      data: [],
    });
    expect(await leadsOf(tenantId)).toEqual([]);
    expect(await outboxOf(tenantId)).toEqual([]);
  });

  it.each([
    ['missing', {}],
    ['empty', { leads: [] }],
    ['not an array', { leads: { email: 'a@example.com' } }],
    ['a string', { leads: 'a@example.com' }],
  ])(
    'leads %s -> 400 Invalid request: leads array required, nothing written',
    async (_case, body) => {
      const { tenantId, cookie } = await tenantSession(stack, database);
      const res = await request(stack.url)
        .post('/api/v1/import/leads')
        .set('Cookie', cookie)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: 'Invalid request: leads array required',
        code: 'INVALID_REQUEST',
      });
      expect(await leadsOf(tenantId)).toEqual([]);
      expect(await jobsOf(tenantId)).toEqual([]);
    },
  );

  it('malformed JSON -> 400 INVALID_JSON', async () => {
    const { cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .set('content-type', 'application/json')
      .send('{"leads": [');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON');
  });

  it('more rows than the maximum -> 400 VALIDATION_ERROR naming the limit, nothing written', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const leads = Array.from({ length: 51 }, (_, i) => ({ email: `l${i}@example.com` }));
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({ leads });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Too many leads: at most 50 per request',
      details: { maxRows: 50, received: 51 },
    });
    expect(await leadsOf(tenantId)).toEqual([]);
  });

  it('re-importing updates by email (case-insensitive) instead of duplicating, with the merge rule', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const first = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({
        leads: [
          {
            email: 'merge@example.com',
            first_name: 'Old',
            phone: '123',
            company: 'A',
            custom_fields: { keep: 1 },
          },
        ],
      });
    const second = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({
        leads: [
          { email: 'MERGE@example.com', first_name: 'New', status: 'contacted', company: 'B' },
        ],
      });
    expect(second.body.data[0].id).toBe(first.body.data[0].id);
    const rows = await leadsOf(tenantId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      first_name: 'New',
      phone: '123',
      status: 'contacted',
      custom_fields: { keep: 1, company: 'B' },
    });
    expect((await outboxOf(tenantId)).map((e) => e.type)).toEqual(['lead.created', 'lead.updated']);
  });

  it('merges duplicate emails within one request in order, storing one lead', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', cookie)
      .send({
        leads: [
          { email: 'twice@example.com', first_name: 'First', company: 'X' },
          { email: 'Twice@Example.com', last_name: 'Second' },
        ],
      });
    expect(res.body.imported).toBe(2);
    expect(res.body.data[0].id).toBe(res.body.data[1].id);
    const rows = await leadsOf(tenantId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      first_name: 'First',
      last_name: 'Second',
      custom_fields: { company: 'X' },
    });
    expect((await outboxOf(tenantId)).map((e) => e.type)).toEqual(['lead.created']);
  });

  it('keeps tenants apart: the same email in two tenants is two leads', async () => {
    const a = await tenantSession(stack, database);
    const b = await tenantSession(stack, database);
    const ra = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', a.cookie)
      .send({ leads: [{ email: 'shared@example.com' }] });
    const rb = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', b.cookie)
      .send({ leads: [{ email: 'shared@example.com' }] });
    expect(ra.body.data[0].id).not.toBe(rb.body.data[0].id);
    expect(await leadsOf(a.tenantId)).toHaveLength(1);
    expect(await leadsOf(b.tenantId)).toHaveLength(1);
  });

  it('a viewer cannot import (403 FORBIDDEN), and without a session it is 401', async () => {
    const viewer = await tenantSession(stack, database, 'viewer');
    const res = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', viewer.cookie)
      .send({ leads: [{ email: 'v@example.com' }] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect(await leadsOf(viewer.tenantId)).toEqual([]);
    const anonymous = await request(stack.url)
      .post('/api/v1/import/leads')
      .send({ leads: [{ email: 'v@example.com' }] });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('Unauthorized');
  });
});
