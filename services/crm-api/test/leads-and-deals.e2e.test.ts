import { withSystemScope, withTenant } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  createTenant,
  outboxEvents,
  signIn,
  tenantSession,
  testDb,
} from '@crm/test-kit';
import request from 'supertest';
import { useStack } from './support/stack';

const database = testDb();
const stack = useStack();
afterAll(() => database.close());

async function importLeads(cookie: string, leads: object[]) {
  const res = await request(stack.url)
    .post('/api/v1/import/leads')
    .set('Cookie', cookie)
    .send({ leads });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ id: string; email: string }>;
}

function dealsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx.selectFrom('crm_deals').selectAll().where('tenant_id', '=', tenantId).execute(),
  );
}
async function eventTypes(tenantId: string) {
  return (await outboxEvents(database, tenantId)).map((e) => e.type);
}

describe('GET /api/crm/leads', () => {
  let owner: Awaited<ReturnType<typeof tenantSession>>;
  beforeAll(async () => {
    owner = await tenantSession(stack, database);
    await importLeads(owner.cookie, [
      {
        email: 'ann@example.com',
        first_name: 'Ann',
        last_name: 'Lee',
        status: 'new',
        source: 'web',
      },
      { email: 'bob@example.com', first_name: 'Bob', status: 'qualified', source: 'csv' },
      { email: 'cat@example.com', first_name: 'Cat', status: 'qualified' },
      { email: 'dan_100@example.com', first_name: 'Dan 100%', status: 'lost' },
    ]);
  });

  it('pages with the shared helper: { items, total, page, pageSize, totalPages }', async () => {
    const res = await request(stack.url)
      .get('/api/crm/leads?page=2&pageSize=3&sortBy=email&sortOrder=asc')
      .set('Cookie', owner.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 4, page: 2, pageSize: 3, totalPages: 2 });
    expect(res.body.items.map((l: { email: string }) => l.email)).toEqual(['dan_100@example.com']);
  });

  it('filters by status, by normalised source, and by q over email and names (% is literal)', async () => {
    const get = async (query: string) =>
      (
        await request(stack.url)
          .get(`/api/crm/leads?sortBy=email&sortOrder=asc&${query}`)
          .set('Cookie', owner.cookie)
      ).body.items.map((l: { email: string }) => l.email);
    expect(await get('status=qualified')).toEqual(['bob@example.com', 'cat@example.com']);
    expect(await get('source=CSV')).toEqual(['bob@example.com']);
    expect(await get('source=Web%20Form')).toEqual(['ann@example.com']);
    expect(await get('q=ann%20lee')).toEqual(['ann@example.com']);
    expect(await get('q=100%25')).toEqual(['dan_100@example.com']);
    expect(await get('q=%25')).toEqual(['dan_100@example.com']);
  });

  it('rejects bad page parameters and filters with 400 VALIDATION_ERROR', async () => {
    for (const query of [
      'pageSize=101',
      'sortBy=password',
      'sortOrder=up',
      'status=sleeping',
      'page=0',
    ]) {
      const res = await request(stack.url)
        .get(`/api/crm/leads?${query}`)
        .set('Cookie', owner.cookie);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('GET /api/crm/leads/:id reads a lead of the tenant and 404s for another tenant or a bad id', async () => {
    const other = await tenantSession(stack, database);
    const [otherLead] = await importLeads(other.cookie, [{ email: 'secret@example.com' }]);
    const mine = (
      await request(stack.url).get('/api/crm/leads?pageSize=1').set('Cookie', owner.cookie)
    ).body.items[0];
    const res = await request(stack.url)
      .get(`/api/crm/leads/${mine.id}`)
      .set('Cookie', owner.cookie);
    expect(res.status).toBe(200);
    expect(res.body.data.lead).toMatchObject({ id: mine.id, email: mine.email });
    for (const id of [otherLead.id, 'not-a-uuid']) {
      const denied = await request(stack.url)
        .get(`/api/crm/leads/${id}`)
        .set('Cookie', owner.cookie);
      expect(denied.status).toBe(404);
      expect(denied.body).toMatchObject({
        success: false,
        code: 'NOT_FOUND',
        message: 'Lead not found',
      });
    }
    // And the other tenant's list never shows ours.
    const theirs = await request(stack.url).get('/api/crm/leads').set('Cookie', other.cookie);
    expect(theirs.body.items.map((l: { email: string }) => l.email)).toEqual([
      'secret@example.com',
    ]);
  });
});

describe('/api/crm/deals', () => {
  it('creates a deal with defaults -> 201 { deal }, row and deal.created event written', async () => {
    const { tenantId, userId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url)
      .post('/api/crm/deals')
      .set('Cookie', cookie)
      .send({ title: 'Big one', value: '1200.50' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Deal created',
      data: {
        deal: expect.objectContaining({
          title: 'Big one',
          value: '1200.50',
          currency: 'USD',
          stage: 'lead',
          assigned_to: null,
          lead_id: null,
          contact_id: null,
          expected_close_date: null,
          custom_fields: {},
          created_by: userId,
        }),
      },
    });
    expect(await dealsOf(tenantId)).toHaveLength(1);
    expect(await eventTypes(tenantId)).toEqual(['deal.created']);
  });

  it('accepts every documented field, checking references inside the tenant', async () => {
    const { tenantId, userId, cookie } = await tenantSession(stack, database);
    const [lead] = await importLeads(cookie, [{ email: 'deal-lead@example.com' }]);
    const res = await request(stack.url)
      .post('/api/crm/deals')
      .set('Cookie', cookie)
      .send({
        title: 'Full',
        value: 99,
        currency: 'eur',
        stage: 'proposal',
        assigned_to: userId,
        lead_id: lead.id,
        expected_close_date: '2027-01-31',
        custom_fields: { channel: 'partner' },
      });
    expect(res.status).toBe(201);
    expect(res.body.data.deal).toMatchObject({
      value: '99.00',
      currency: 'EUR',
      stage: 'proposal',
      assigned_to: userId,
      lead_id: lead.id,
      expected_close_date: '2027-01-31',
      custom_fields: { channel: 'partner' },
    });
    expect(await dealsOf(tenantId)).toHaveLength(1);
  });

  it.each([
    [{}, 'title is required'],
    [{ title: 'x', value: -1 }, 'value must be a number >= 0 with up to 2 decimal places'],
    [{ title: 'x', value: '1.234' }, 'value must be a decimal with up to 2 places'],
    [{ title: 'x', currency: 'XYZ1' }, 'currency must be an ISO 4217 code, e.g. USD'],
    [
      { title: 'x', stage: 'dreaming' },
      'stage must be one of: lead, qualified, proposal, negotiation, won, lost',
    ],
    [
      { title: 'x', expected_close_date: '31/01/2027' },
      'expected_close_date must be a date (YYYY-MM-DD)',
    ],
    [{ title: 'x', lead_id: 'nope' }, 'lead_id must be an id (uuid)'],
  ])('rejects %j with 400 VALIDATION_ERROR (%s), writing nothing', async (body, message) => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const res = await request(stack.url).post('/api/crm/deals').set('Cookie', cookie).send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.issues.map((i: { message: string }) => i.message)).toContain(message);
    expect(await dealsOf(tenantId)).toEqual([]);
  });

  it("refuses references to another tenant's lead or user, or a non-member, with 400", async () => {
    const a = await tenantSession(stack, database);
    const b = await tenantSession(stack, database);
    const [leadOfB] = await importLeads(b.cookie, [{ email: 'b-lead@example.com' }]);
    const cases: Array<[object, string]> = [
      [{ lead_id: leadOfB.id }, 'lead_id must be a lead of this tenant'],
      [{ assigned_to: b.userId }, 'assigned_to must be a member of this tenant'],
      [
        { contact_id: '00000000-0000-4000-8000-000000000000' },
        'contact_id must be a contact of this tenant',
      ],
    ];
    for (const [refs, message] of cases) {
      const res = await request(stack.url)
        .post('/api/crm/deals')
        .set('Cookie', a.cookie)
        .send({ title: 'x', ...refs });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    }
    expect(await dealsOf(a.tenantId)).toEqual([]);
  });

  it('lists { deals } newest first, filtered by stage, assigned_to and lead_id, capped by limit', async () => {
    const { userId, cookie } = await tenantSession(stack, database);
    const [lead] = await importLeads(cookie, [{ email: 'dealer@example.com' }]);
    for (const [title, stage] of [
      ['one', 'lead'],
      ['two', 'won'],
      ['three', 'won'],
    ]) {
      await request(stack.url)
        .post('/api/crm/deals')
        .set('Cookie', cookie)
        .send({
          title,
          stage,
          assigned_to: title === 'three' ? userId : undefined,
          lead_id: title === 'one' || title === 'three' ? lead.id : undefined,
        })
        .expect(201);
    }
    const titles = async (query: string) =>
      (await request(stack.url).get(`/api/crm/deals${query}`).set('Cookie', cookie)).body.deals.map(
        (d: { title: string }) => d.title,
      );
    expect(await titles('')).toEqual(['three', 'two', 'one']);
    expect(await titles('?stage=won')).toEqual(['three', 'two']);
    expect(await titles(`?assigned_to=${userId}`)).toEqual(['three']);
    expect(await titles(`?lead_id=${lead.id}`)).toEqual(['three', 'one']);
    expect(await titles(`?lead_id=${lead.id}&stage=lead`)).toEqual(['one']);
    expect(await titles(`?lead_id=${userId}`)).toEqual([]);
    expect(await titles('?limit=1')).toEqual(['three']);
    for (const query of [
      '?limit=0',
      '?limit=1001',
      '?limit=abc',
      '?stage=nope',
      '?assigned_to=me',
      '?lead_id=nope',
    ]) {
      const res = await request(stack.url).get(`/api/crm/deals${query}`).set('Cookie', cookie);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('defaults the list limit to 100', async () => {
    const tenant = await createTenant(database);
    await withTenant(database.db, tenant.id, (trx) =>
      trx
        .insertInto('crm_deals')
        .values(
          Array.from({ length: 101 }, (_, i) => ({
            tenant_id: tenant.id,
            title: `d${i}`,
            custom_fields: '{}',
          })),
        )
        .execute(),
    );
    const user = await createAccount(database, 'many');
    await addMember(database, tenant.id, user.id, 'member');
    const cookie = await signIn(stack.gateway.app, user.email);
    const res = await request(stack.url).get('/api/crm/deals').set('Cookie', cookie);
    expect(res.body.deals).toHaveLength(100);
  });

  it('reads, updates (stage change emits deal.stage_changed) and deletes a deal', async () => {
    const { tenantId, cookie } = await tenantSession(stack, database);
    const created = await request(stack.url)
      .post('/api/crm/deals')
      .set('Cookie', cookie)
      .send({ title: 'Lifecycle' });
    const id = created.body.data.deal.id;
    const read = await request(stack.url).get(`/api/crm/deals/${id}`).set('Cookie', cookie);
    expect(read.body.data.deal).toMatchObject({ id, title: 'Lifecycle' });
    const patched = await request(stack.url)
      .patch(`/api/crm/deals/${id}`)
      .set('Cookie', cookie)
      .send({ stage: 'negotiation', value: 10 });
    expect(patched.status).toBe(200);
    expect(patched.body.data.deal).toMatchObject({ stage: 'negotiation', value: '10.00' });
    const renamed = await request(stack.url)
      .patch(`/api/crm/deals/${id}`)
      .set('Cookie', cookie)
      .send({ title: 'Renamed' });
    expect(renamed.body.data.deal.title).toBe('Renamed');
    const empty = await request(stack.url)
      .patch(`/api/crm/deals/${id}`)
      .set('Cookie', cookie)
      .send({});
    expect(empty.status).toBe(400);
    const deleted = await request(stack.url).delete(`/api/crm/deals/${id}`).set('Cookie', cookie);
    expect(deleted.status).toBe(200);
    expect(await dealsOf(tenantId)).toEqual([]);
    expect(
      (await request(stack.url).get(`/api/crm/deals/${id}`).set('Cookie', cookie)).status,
    ).toBe(404);
    expect(await eventTypes(tenantId)).toEqual([
      'deal.created',
      'deal.stage_changed',
      'deal.deleted',
    ]);
  });

  it('a viewer can list and read deals but not create, update or delete them (403 FORBIDDEN)', async () => {
    const owner = await tenantSession(stack, database);
    const created = await request(stack.url)
      .post('/api/crm/deals')
      .set('Cookie', owner.cookie)
      .send({ title: 'Look only' });
    const id = created.body.data.deal.id;
    const viewer = await createAccount(database, 'viewer');
    await addMember(database, owner.tenantId, viewer.id, 'viewer');
    const cookie = await signIn(stack.gateway.app, viewer.email);
    expect((await request(stack.url).get('/api/crm/deals').set('Cookie', cookie)).status).toBe(200);
    expect(
      (await request(stack.url).get(`/api/crm/deals/${id}`).set('Cookie', cookie)).status,
    ).toBe(200);
    const attempts = [
      request(stack.url).post('/api/crm/deals').set('Cookie', cookie).send({ title: 'nope' }),
      request(stack.url)
        .patch(`/api/crm/deals/${id}`)
        .set('Cookie', cookie)
        .send({ title: 'nope' }),
      request(stack.url).delete(`/api/crm/deals/${id}`).set('Cookie', cookie),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect((await dealsOf(owner.tenantId)).map((d) => d.title)).toEqual(['Look only']);
  });
});
