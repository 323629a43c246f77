import { randomUUID } from 'node:crypto';
import { addMember, createAccount, insertRow, signIn, tenantSession, testDb } from '@crm/test-kit';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * Admin views: the tenant's rows of the inbound delivery ledger, through the real
 * gateway with a session. Only the tenant's own rows are listed (row-level security); an
 * unmatched delivery (no tenant) is shown to nobody; the raw payload is only in the audit view.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const PATH = '/api/integrations/inbound-events';

const get = (session: Session, path = '') =>
  request(stack.url).get(`${PATH}${path}`).set('Cookie', session.cookie);

const LIST_KEYS = [
  'attempts',
  'content_type',
  'delivery_id',
  'detail',
  'event_type',
  'id',
  'outcome',
  'processed_at',
  'provider',
  'received_at',
  'verification',
];

let owner: Session;
let other: Session;
const ids: Record<string, string> = {};

/**
 * A ledger row as recorded before inbound_event_payloads, its payload in the row itself (in
 * 2030: no payload partition needed); the audit view still reads such a row's payload.
 */
function ledgerRow(
  tenantId: string | null,
  values: { provider: string; outcome: string; minute: number; raw_body?: string },
) {
  return insertRow(database, 'inbound_events', {
    tenant_id: tenantId,
    provider: values.provider,
    delivery_id: randomUUID(),
    event_type: `${values.provider}.event`,
    content_type: 'application/json',
    raw_body: values.raw_body ?? `{"provider":"${values.provider}"}`,
    verification: 'verified',
    outcome: values.outcome,
    detail: `${values.outcome} for the test`,
    received_at: new Date(Date.UTC(2030, 0, 1, 12, values.minute)),
    processed_at: new Date(Date.UTC(2030, 0, 1, 12, values.minute, 1)),
  });
}

beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  other = await tenantSession(stack, database, 'owner');
  ids.email = (
    await ledgerRow(owner.tenantId, {
      provider: 'email',
      outcome: 'processed',
      minute: 1,
      raw_body: '{"type":"email.opened","data":{"email_id":"m-1","to":"ann@example.com"}}',
    })
  ).id;
  ids.storefront = (
    await ledgerRow(owner.tenantId, { provider: 'storefront_a', outcome: 'ignored', minute: 2 })
  ).id;
  ids.payment = (
    await ledgerRow(owner.tenantId, { provider: 'payments_stripe', outcome: 'failed', minute: 3 })
  ).id;
  ids.others = (
    await ledgerRow(other.tenantId, { provider: 'email', outcome: 'processed', minute: 4 })
  ).id;
  ids.unmatched = (
    await ledgerRow(null, { provider: 'email', outcome: 'unmatched', minute: 5 })
  ).id;
});

describe('GET /api/integrations/inbound-events', () => {
  it("lists only the tenant's rows, newest first, without the raw payload", async () => {
    const res = await get(owner);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    expect(res.body.items.map((e: { id: string }) => e.id)).toEqual([
      ids.payment,
      ids.storefront,
      ids.email,
    ]);
    expect(res.body.items[2]).toEqual({
      id: ids.email,
      provider: 'email',
      delivery_id: expect.any(String),
      event_type: 'email.event',
      content_type: 'application/json',
      verification: 'verified',
      outcome: 'processed',
      detail: 'processed for the test',
      attempts: 1,
      received_at: '2030-01-01T12:01:00.000Z',
      processed_at: '2030-01-01T12:01:01.000Z',
    });
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(LIST_KEYS);
    expect(JSON.stringify(res.body)).not.toContain('ann@example.com');
  });

  it('an unmatched delivery (no tenant) and another tenant’s rows are shown to nobody else', async () => {
    for (const session of [owner, other]) {
      const text = JSON.stringify((await get(session, '?pageSize=100')).body);
      expect(text).not.toContain(ids.unmatched);
    }
    const theirs = await get(other);
    expect(theirs.body.items.map((e: { id: string }) => e.id)).toEqual([ids.others]);
    const unmatched = await get(owner, '?outcome=unmatched');
    expect(unmatched.status).toBe(200);
    expect(unmatched.body).toMatchObject({ items: [], total: 0 });
  });

  it('filters by provider and outcome, alone and together', async () => {
    const byProvider = await get(owner, '?provider=storefront_a');
    expect(byProvider.body.items.map((e: { id: string }) => e.id)).toEqual([ids.storefront]);
    const byOutcome = await get(owner, '?outcome=failed');
    expect(byOutcome.body.items.map((e: { id: string }) => e.id)).toEqual([ids.payment]);
    const both = await get(owner, '?provider=email&outcome=failed');
    expect(both.body).toMatchObject({ items: [], total: 0 });
  });

  it('filters by received_at: from inclusive, to exclusive, with provider and outcome too', async () => {
    const range = await get(owner, '?from=2030-01-01T12:02:00Z&to=2030-01-01T12:03:00Z');
    expect(range.status).toBe(200);
    expect(range.body.items.map((e: { id: string }) => e.id)).toEqual([ids.storefront]);
    const zoned = await get(owner, '?from=2030-01-01T13:02:00%2B01:00&outcome=failed');
    expect(zoned.body.items.map((e: { id: string }) => e.id)).toEqual([ids.payment]);
  });

  it('page, pageSize, sortBy and sortOrder', async () => {
    const res = await get(owner, '?page=2&pageSize=2&sortBy=received_at&sortOrder=asc');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(res.body.items.map((e: { id: string }) => e.id)).toEqual([ids.payment]);
  });

  it.each([
    [
      '?outcome=bogus',
      'Invalid filters: outcome: outcome must be one of: processed, ignored, unmatched, failed',
    ],
    [
      '?provider=Email!',
      'Invalid filters: provider: provider must be a ledger provider key, e.g. email, storefront_a, payments_stripe',
    ],
    ['?provider=email&provider=billing', 'Invalid filters: provider: provider must be given once'],
    [
      '?from=2030-01-01',
      'Invalid filters: from: from must be an ISO 8601 date-time with a time zone, e.g. 2026-11-24T10:00:00Z',
    ],
    [
      '?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z',
      'Invalid filters: from: from must be before to',
    ],
    [
      '?sortBy=raw_body',
      'Invalid pagination parameters: sortBy: sortBy must be one of: received_at',
    ],
  ])('%s -> 400 VALIDATION_ERROR', async (query, message) => {
    const res = await get(owner, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', message });
  });
});

describe('GET /api/integrations/inbound-events/:id (the audit view)', () => {
  it('one of the tenant’s rows, with its raw payload', async () => {
    const res = await get(owner, `/${ids.email}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'OK',
      data: {
        event: {
          id: ids.email,
          provider: 'email',
          delivery_id: expect.any(String),
          event_type: 'email.event',
          content_type: 'application/json',
          verification: 'verified',
          outcome: 'processed',
          detail: 'processed for the test',
          attempts: 1,
          received_at: '2030-01-01T12:01:00.000Z',
          processed_at: '2030-01-01T12:01:01.000Z',
          raw_body: '{"type":"email.opened","data":{"email_id":"m-1","to":"ann@example.com"}}',
          // Recorded before the ledger kept headers.
          headers: null,
        },
      },
    });
  });

  it("another tenant's row, an unmatched row, an unknown id or a non-uuid -> 404 NOT_FOUND", async () => {
    for (const id of [ids.others, ids.unmatched, '00000000-0000-4000-8000-000000000000', 'x']) {
      const res = await get(owner, `/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: 'Not found',
        code: 'NOT_FOUND',
        message: 'Inbound event not found',
        details: null,
      });
    }
  });
});

describe('roles', () => {
  it.each(['member', 'viewer'] as const)(
    'a %s lists the ledger but does not get the raw payloads (403)',
    async (role) => {
      const user = await createAccount(database, role);
      await addMember(database, owner.tenantId, user.id, role);
      const session = { ...owner, cookie: await signIn(stack.gateway.app, user.email) };
      const list = await get(session);
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(3);
      const audit = await get(session, `/${ids.email}`);
      expect(audit.status).toBe(403);
      expect(audit.body).toMatchObject({
        code: 'FORBIDDEN',
        message: 'This action needs one of the roles: owner, admin',
      });
      expect(JSON.stringify(audit.body)).not.toContain('ann@example.com');
    },
  );

  it('an admin reads the audit view', async () => {
    const user = await createAccount(database, 'admin');
    await addMember(database, owner.tenantId, user.id, 'admin');
    const session = { ...owner, cookie: await signIn(stack.gateway.app, user.email) };
    const res = await get(session, `/${ids.email}`);
    expect(res.status).toBe(200);
    expect(res.body.data.event.raw_body).toContain('ann@example.com');
  });

  it('the ledger is read-only: POST and DELETE have no route', async () => {
    const post = await request(stack.url).post(PATH).set('Cookie', owner.cookie).send({});
    expect(post.status).toBe(404);
    const removal = await request(stack.url)
      .delete(`${PATH}/${ids.email}`)
      .set('Cookie', owner.cookie);
    expect(removal.status).toBe(404);
    expect((await get(owner)).body.total).toBe(3);
  });
});
