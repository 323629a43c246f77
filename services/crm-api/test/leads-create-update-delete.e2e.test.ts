import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  createAccount,
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

type Session = Awaited<ReturnType<typeof tenantSession>>;

function leadsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_leads')
      .select(['id', 'email', 'first_name', 'last_name', 'phone', 'status', 'source'])
      .select('custom_fields')
      .where('tenant_id', '=', tenantId)
      .orderBy('email')
      .execute(),
  );
}
async function eventsOf(tenantId: string) {
  return (await outboxEvents(database, tenantId)).map((e) => ({
    type: e.type,
    record: (e.envelope as { record?: unknown }).record,
    data: (e.envelope as { data?: unknown }).data,
  }));
}
const create = (who: Session, body: unknown) =>
  request(stack.url)
    .post('/api/crm/leads')
    .set('Cookie', who.cookie)
    .send(body as object);

describe('POST /api/crm/leads', () => {
  it('creates one lead by the import rules -> 201 { lead }, the row and lead.created', async () => {
    const owner = await tenantSession(stack, database);
    const res = await create(owner, {
      email: '  Ada@Example.COM ',
      first_name: ' Ada ',
      status: 'Qualified',
      source: 'Web Form',
      company: 'Acme',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Lead created',
      data: {
        lead: {
          email: 'ada@example.com',
          first_name: 'Ada',
          last_name: null,
          phone: null,
          status: 'qualified',
          source: 'web_form',
          custom_fields: { company: 'Acme' },
        },
      },
    });
    const { id } = res.body.data.lead;
    expect(await leadsOf(owner.tenantId)).toEqual([
      {
        id,
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: null,
        phone: null,
        status: 'qualified',
        source: 'web_form',
        custom_fields: { company: 'Acme' },
      },
    ]);
    expect(await eventsOf(owner.tenantId)).toEqual([
      {
        type: 'lead.created',
        record: { module: 'leads', id },
        data: { email: 'ada@example.com', status: 'qualified', source: 'web_form' },
      },
    ]);
  });

  it('answers an invalid lead with the import error text as a 400 and writes nothing', async () => {
    const owner = await tenantSession(stack, database);
    for (const [body, message] of [
      [{ first_name: 'No email' }, 'Email is required'],
      [{ email: 'not-an-email' }, 'Invalid email'],
      [
        { email: 'a@example.com', status: 'sleeping' },
        'Invalid status "sleeping"; one of: new, contacted, qualified, unqualified, converted, lost',
      ],
      [{ email: 'a@example.com', phone: { n: 1 } }, 'Invalid phone: must be a string'],
      [{ email: 'a@example.com', custom_fields: [1] }, 'Invalid custom_fields: must be an object'],
      [['a@example.com'], 'Lead must be an object'],
    ] as const) {
      const res = await create(owner, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', message });
    }
    expect(await leadsOf(owner.tenantId)).toEqual([]);
    expect(await eventsOf(owner.tenantId)).toEqual([]);
  });

  it('a second lead with the same email in the tenant is a 409 ALREADY_EXISTS; another tenant may', async () => {
    const owner = await tenantSession(stack, database);
    const other = await tenantSession(stack, database);
    expect((await create(owner, { email: 'same@example.com', first_name: 'First' })).status).toBe(
      201,
    );
    const again = await create(owner, { email: 'SAME@example.com', first_name: 'Second' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      success: false,
      code: 'ALREADY_EXISTS',
      message: 'A lead with email same@example.com already exists',
    });
    const rows = await leadsOf(owner.tenantId);
    expect(rows.map((l) => [l.email, l.first_name])).toEqual([['same@example.com', 'First']]);
    expect((await eventsOf(owner.tenantId)).map((e) => e.type)).toEqual(['lead.created']);
    expect((await create(other, { email: 'same@example.com' })).status).toBe(201);
  });
});

describe('PATCH and DELETE /api/crm/leads/:id', () => {
  let owner: Session;
  let id: string;

  beforeEach(async () => {
    owner = await tenantSession(stack, database);
    const res = await create(owner, {
      email: 'bo@example.com',
      first_name: 'Bo',
      phone: '+1 555 0100',
      custom_fields: { company: 'Acme', size: 10 },
    });
    id = res.body.data.lead.id;
  });
  const patch = (body: unknown, leadId = id, who = owner) =>
    request(stack.url)
      .patch(`/api/crm/leads/${leadId}`)
      .set('Cookie', who.cookie)
      .send(body as object);

  it('changes only the keys given, merges custom_fields, and writes lead.updated', async () => {
    const res = await patch({
      status: 'contacted',
      phone: '',
      last_name: ' Li ',
      source: 'Referal',
      custom_fields: { size: 12, tier: 'gold' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Lead updated',
      data: {
        lead: {
          id,
          email: 'bo@example.com',
          first_name: 'Bo',
          last_name: 'Li',
          phone: null,
          status: 'contacted',
          source: 'referral',
          custom_fields: { company: 'Acme', size: 12, tier: 'gold' },
        },
      },
    });
    expect(await leadsOf(owner.tenantId)).toEqual([
      {
        id,
        email: 'bo@example.com',
        first_name: 'Bo',
        last_name: 'Li',
        phone: null,
        status: 'contacted',
        source: 'referral',
        custom_fields: { company: 'Acme', size: 12, tier: 'gold' },
      },
    ]);
    expect((await eventsOf(owner.tenantId)).slice(1)).toEqual([
      {
        type: 'lead.updated',
        record: { module: 'leads', id },
        data: { email: 'bo@example.com', status: 'contacted', source: 'referral' },
      },
    ]);
  });

  it('refuses a bad change with a 400 naming it, and changes nothing', async () => {
    for (const [body, message] of [
      [{}, 'Invalid lead change: Give at least one field to change'],
      [{ status: 'sleeping' }, 'Invalid lead change: status: Invalid status "sleeping"'],
      [{ email: 'nope' }, 'Invalid lead change: email: Invalid email'],
      [{ phone: 12 }, 'Invalid lead change: phone: Invalid phone: must be a string'],
      [{ colour: 'red' }, 'Invalid lead change: Unrecognized key: "colour"'],
      [{ custom_fields: 'x' }, 'Invalid lead change: custom_fields: Invalid custom_fields'],
    ] as const) {
      const res = await patch(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.message).toContain(message);
    }
    expect((await leadsOf(owner.tenantId))[0]).toMatchObject({
      status: 'new',
      phone: '+1 555 0100',
    });
    expect((await eventsOf(owner.tenantId)).map((e) => e.type)).toEqual(['lead.created']);
  });

  it('an email another lead of the tenant has is a 409, and the lead keeps its own', async () => {
    expect((await create(owner, { email: 'taken@example.com' })).status).toBe(201);
    const res = await patch({ email: 'Taken@Example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'ALREADY_EXISTS',
      message: 'A lead with email taken@example.com already exists',
    });
    expect((await leadsOf(owner.tenantId)).map((l) => l.email)).toEqual([
      'bo@example.com',
      'taken@example.com',
    ]);
    const moved = await patch({ email: 'New@Example.com' });
    expect(moved.status).toBe(200);
    expect(moved.body.data.lead.email).toBe('new@example.com');
  });

  it('DELETE removes the lead -> 200 { id } and lead.deleted; again it is a 404', async () => {
    const res = await request(stack.url).delete(`/api/crm/leads/${id}`).set('Cookie', owner.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Lead deleted', data: { id } });
    expect(await leadsOf(owner.tenantId)).toEqual([]);
    expect((await eventsOf(owner.tenantId)).slice(1)).toEqual([
      {
        type: 'lead.deleted',
        record: { module: 'leads', id },
        data: { email: 'bo@example.com', status: 'new', source: 'api_import' },
      },
    ]);
    const again = await request(stack.url)
      .delete(`/api/crm/leads/${id}`)
      .set('Cookie', owner.cookie);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'NOT_FOUND', message: 'Lead not found' });
  });

  it("another tenant's lead, an unknown id and a malformed one are 404s that change nothing", async () => {
    const other = await tenantSession(stack, database);
    for (const leadId of [id, '0190c0de-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const changed = await patch({ status: 'lost' }, leadId, other);
      expect(changed.status).toBe(404);
      expect(changed.body).toMatchObject({ code: 'NOT_FOUND', message: 'Lead not found' });
      const deleted = await request(stack.url)
        .delete(`/api/crm/leads/${leadId}`)
        .set('Cookie', other.cookie);
      expect(deleted.status).toBe(404);
    }
    expect((await leadsOf(owner.tenantId))[0]).toMatchObject({ id, status: 'new' });
    expect(await eventsOf(other.tenantId)).toEqual([]);
  });

  it('a viewer reads the lead but cannot create, change or delete one (403)', async () => {
    const viewer = await createAccount(database, 'viewer');
    await addMember(database, owner.tenantId, viewer.id, 'viewer');
    const cookie = await signIn(stack.gateway.app, viewer.email);
    const read = await request(stack.url).get(`/api/crm/leads/${id}`).set('Cookie', cookie);
    expect(read.status).toBe(200);
    const attempts = await Promise.all([
      request(stack.url).post('/api/crm/leads').set('Cookie', cookie).send({ email: 'v@x.com' }),
      request(stack.url)
        .patch(`/api/crm/leads/${id}`)
        .set('Cookie', cookie)
        .send({ status: 'lost' }),
      request(stack.url).delete(`/api/crm/leads/${id}`).set('Cookie', cookie),
    ]);
    expect(attempts.map((r) => [r.status, r.body.code])).toEqual([
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
    ]);
    expect(await leadsOf(owner.tenantId)).toEqual([expect.objectContaining({ id, status: 'new' })]);
    expect((await eventsOf(owner.tenantId)).map((e) => e.type)).toEqual(['lead.created']);
  });
});
