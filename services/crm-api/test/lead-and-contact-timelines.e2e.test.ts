import { withSystemScope } from '@crm/shared/db';
import { testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { formTenant, type FormTenant } from './support/form-submissions';
import { useStack } from './support/stack';

/**
 * A lead's and a contact's timeline through a real gateway and a real crm-api: rows written
 * through the API where a route exists (leads, form submissions, deals, contacts) and stored
 * directly otherwise (activities, email, chat, calls, orders, payments, as the receivers and
 * migrations write them) come back newest first with their types, only the record's own;
 * paging by nextCursor walks them exactly once, including items that share a time to the
 * microsecond; a cursor of another record or an altered one is a 400, another tenant's record
 * a 404.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

interface Item {
  type: string;
  id: string;
  occurred_at: string;
  summary: string;
  data: Record<string, unknown>;
}

const insert = (table: string, row: Record<string, unknown>) =>
  withSystemScope(database.db, async (trx) => {
    const columns = Object.keys(row);
    const { rows } = await sql<{ id: string }>`
      INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.id(c)))})
      VALUES (${sql.join(columns.map((c) => row[c]))}) RETURNING id`.execute(trx);
    return rows[0].id;
  });

const timeline = (cookie: string, path: string) =>
  request(stack.url).get(path).set('Cookie', cookie);

/** Every page of a timeline at `limit` per page, following nextCursor to its end. */
async function walk(cookie: string, base: string, limit: number): Promise<Item[][]> {
  const pages: Item[][] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await timeline(cookie, `${base}?limit=${limit}${query}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
    pages.push(res.body.items);
    cursor = res.body.nextCursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor);
  return pages;
}

/** The stored rows a tenant's receivers need before a call, order or payment can be stored. */
async function connections(tenantId: string) {
  return {
    storefront: await insert('storefront_connections', {
      tenant_id: tenantId,
      platform: 'storefront_a',
      shop_identifier: `shop-${tenantId}`,
    }),
    payments: await insert('payment_connections', {
      tenant_id: tenantId,
      provider: 'stripe',
      webhook_secret_ciphertext: 'unused',
    }),
  };
}

let owner: FormTenant;
let other: FormTenant;
let leadId: string;
let otherLeadId: string;
let contactId: string;
let otherContactId: string;
let foreignLeadId: string;
let foreignContactId: string;

beforeAll(async () => {
  owner = await formTenant(stack, database);
  other = await formTenant(stack, database);
  const api = (method: 'post', path: string, body: object, cookie = owner.cookie) =>
    request(stack.url)[method](path).set('Cookie', cookie).send(body);

  // The lead: imported with a phone written for people, then a form submission and a deal.
  const imported = await api('post', '/api/v1/import/leads', {
    leads: [
      { email: 'lena@example.com', first_name: 'Lena', phone: '+44 (20) 7946-0001' },
      { email: 'otto@example.com', first_name: 'Otto', phone: '+44 20 7946 0002' },
    ],
  });
  expect(imported.status).toBe(200);
  [leadId, otherLeadId] = imported.body.data.map((l: { id: string }) => l.id);
  const form = await api('post', '/api/crm/forms', {
    slug: 'contact',
    name: 'Contact us',
    fields: [{ name: 'email', type: 'email', required: true }, { name: 'message' }],
  });
  expect(form.status).toBe(201);
  const submitted = await request(stack.url)
    .post(`/api/public/forms/${owner.slug}/contact/submit`)
    .send({ email: 'lena@example.com', message: 'Call me' });
  expect(submitted.status).toBe(201);
  const deal = await api('post', '/api/crm/deals', { title: 'Lena annual', lead_id: leadId });
  expect(deal.status).toBe(201);

  const tenant_id = owner.tenantId;
  const { storefront, payments } = await connections(tenant_id);
  // Three items at one instant, to the microsecond, and one a microsecond earlier.
  const tie = '2026-03-01T10:00:00.000001Z';
  await insert('crm_activities', {
    tenant_id,
    type: 'note',
    subject: 'Met',
    occurred_at: tie,
    lead_id: leadId,
  });
  const message = await insert('email_messages', {
    tenant_id,
    provider_message_id: `m-${leadId}`,
    to_email: 'lena@example.com',
    subject: 'Welcome',
    lead_id: leadId,
    sent_at: '2026-02-01T09:00:00Z',
  });
  await insert('email_opens', { tenant_id, message_id: message, occurred_at: tie });
  // No provider time: the click is placed at when it was stored.
  await insert('email_clicks', {
    tenant_id,
    message_id: message,
    target_url: 'https://example.com/pricing',
    created_at: '2026-02-15T00:00:00Z',
  });
  const conversation = await insert('chat_conversations', { tenant_id, external_id: 'wa-lena' });
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('chat_conversation_details')
      .values({ conversation_id: conversation, tenant_id, contact_email: 'lena@example.com' })
      .execute(),
  );
  for (const [external_id, sent_at] of [
    ['wa-1', tie],
    ['wa-2', '2026-03-01T10:00:00.000000Z'],
  ]) {
    await insert('chat_messages', {
      tenant_id,
      conversation_id: conversation,
      external_id,
      direction: 'inbound',
      body: `Hello ${external_id}`,
      sent_at,
    });
  }
  await insert('call_logs', {
    tenant_id,
    call_id: 'call-from-lena',
    direction: 'inbound',
    from_number: '+442079460001',
    to_number: '+15550000001',
    status: 'completed',
    created_at: '2026-01-20T00:00:00Z',
  });
  await insert('call_logs', {
    tenant_id,
    call_id: 'call-to-lena',
    direction: 'outbound-api',
    from_number: '+15550000001',
    to_number: '+442079460001',
    status: 'no-answer',
    created_at: '2026-01-21T00:00:00Z',
  });
  await insert('commerce_orders', {
    tenant_id,
    connection_id: storefront,
    external_order_id: 'o-lena',
    order_number: '#1001',
    email: 'lena@example.com',
    total: '49.00',
    currency: 'EUR',
    created_at: '2026-01-05T00:00:00Z',
  });
  await insert('payment_events', {
    tenant_id,
    connection_id: payments,
    provider: 'stripe',
    external_event_id: 'evt-lena',
    kind: 'payment.succeeded',
    amount: '49.00',
    currency: 'EUR',
    email: 'lena@example.com',
    created_at: '2026-01-06T00:00:00Z',
  });

  // Another lead of the same tenant, with rows of its own that must stay off Lena's timeline.
  await insert('crm_activities', {
    tenant_id,
    type: 'call',
    occurred_at: tie,
    lead_id: otherLeadId,
  });
  const otherMessage = await insert('email_messages', {
    tenant_id,
    provider_message_id: `m-${otherLeadId}`,
    lead_id: otherLeadId,
    sent_at: tie,
  });
  await insert('email_opens', { tenant_id, message_id: otherMessage, occurred_at: tie });
  await insert('call_logs', {
    tenant_id,
    call_id: 'call-otto',
    from_number: '+442079460002',
    to_number: '+15550000001',
    status: 'completed',
  });

  // The contact: created and given a deal through the API, the rest stored by link.
  const contact = await api('post', '/api/crm/contacts', {
    email: 'cara@example.com',
    phone: '+1 (415) 555-0100',
  });
  expect(contact.status).toBe(201);
  contactId = contact.body.data.contact.id;
  const second = await api('post', '/api/crm/contacts', { email: 'cole@example.com' });
  otherContactId = second.body.data.contact.id;
  expect(
    (await api('post', '/api/crm/deals', { title: 'Cara pilot', contact_id: contactId })).status,
  ).toBe(201);
  await insert('crm_activities', {
    tenant_id,
    type: 'meeting',
    occurred_at: '2026-04-01T00:00:00Z',
    contact_id: contactId,
  });
  await insert('crm_activities', { tenant_id, type: 'task', contact_id: otherContactId });
  const caraMessage = await insert('email_messages', {
    tenant_id,
    provider_message_id: `m-${contactId}`,
    subject: 'Pilot',
    contact_id: contactId,
    sent_at: '2026-03-01T00:00:00Z',
  });
  await insert('email_replies', {
    tenant_id,
    message_id: caraMessage,
    snippet: 'Sounds good',
    occurred_at: '2026-03-02T00:00:00Z',
  });
  const caraConversation = await insert('chat_conversations', {
    tenant_id,
    external_id: 'wa-cara',
  });
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('chat_conversation_details')
      .values({ conversation_id: caraConversation, tenant_id, contact_id: contactId })
      .execute(),
  );
  await insert('chat_messages', {
    tenant_id,
    conversation_id: caraConversation,
    external_id: 'wa-cara-1',
    direction: 'outbound',
    body: 'Thanks',
    sent_at: '2026-03-03T00:00:00Z',
  });
  await insert('call_logs', {
    tenant_id,
    call_id: 'call-cara',
    direction: 'outbound-api',
    from_number: '+15550000001',
    to_number: '+14155550100',
    status: 'completed',
    created_at: '2026-03-04T00:00:00Z',
  });
  await insert('commerce_orders', {
    tenant_id,
    connection_id: storefront,
    external_order_id: 'o-cara',
    contact_id: contactId,
    email: 'cara@example.com',
    created_at: '2026-02-01T00:00:00Z',
  });
  await insert('payment_events', {
    tenant_id,
    connection_id: payments,
    provider: 'stripe',
    external_event_id: 'evt-cara',
    kind: 'payment.refunded',
    contact_id: contactId,
    created_at: '2026-02-02T00:00:00Z',
  });

  // Another tenant's lead and contact.
  const foreign = await api(
    'post',
    '/api/v1/import/leads',
    { leads: [{ email: 'lena@example.com' }] },
    other.cookie,
  );
  foreignLeadId = foreign.body.data[0].id;
  foreignContactId = (
    await api('post', '/api/crm/contacts', { email: 'cara@example.com' }, other.cookie)
  ).body.data.contact.id;
});

const LEAD_TYPES = [
  'deal',
  'form_submission',
  // The three at one instant: by type, descending.
  'email_open',
  'chat_message',
  'activity',
  'chat_message',
  'email_click',
  'email_sent',
  'call',
  'call',
  'payment',
  'order',
];

describe('GET /api/crm/leads/:id/timeline', () => {
  it("lists the lead's form submission, deal, activity, email, chat, calls, order and payment, newest first", async () => {
    const res = await timeline(owner.cookie, `/api/crm/leads/${leadId}/timeline`);
    expect(res.status).toBe(200);
    const items: Item[] = res.body.items;
    expect(items.map((i) => i.type)).toEqual(LEAD_TYPES);
    expect(res.body.nextCursor).toBeNull();
    const times = items.map((i) => Date.parse(i.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(items[0]).toMatchObject({
      summary: 'Deal created: Lena annual',
      data: { title: 'Lena annual', stage: 'lead' },
    });
    expect(items[1]).toMatchObject({
      summary: 'Submitted form Contact us',
      data: { form_name: 'Contact us', fields: { email: 'lena@example.com', message: 'Call me' } },
    });
    expect(items.find((i) => i.type === 'email_click')).toMatchObject({
      occurred_at: '2026-02-15T00:00:00.000Z',
      data: { subject: 'Welcome', target_url: 'https://example.com/pricing' },
    });
    expect(items.filter((i) => i.type === 'call').map((i) => i.data.direction)).toEqual([
      'outbound-api',
      'inbound',
    ]);
    expect(items.at(-1)).toMatchObject({ summary: 'Order #1001', data: { total: '49.00' } });
  });

  it.each([1, 2, 5])(
    'limit=%i pages through every item exactly once by nextCursor',
    async (limit) => {
      const all = (await timeline(owner.cookie, `/api/crm/leads/${leadId}/timeline`)).body
        .items as Item[];
      const pages = await walk(owner.cookie, `/api/crm/leads/${leadId}/timeline`, limit);
      expect(pages.length).toBe(Math.ceil(all.length / limit));
      for (const page of pages.slice(0, -1)) expect(page).toHaveLength(limit);
      expect(pages.flat()).toEqual(all);
    },
  );

  it('refuses a cursor of another lead, an altered one or a malformed one with 400 naming the lead', async () => {
    const otherPage = await timeline(
      owner.cookie,
      `/api/crm/leads/${otherLeadId}/timeline?limit=1`,
    );
    expect(otherPage.status).toBe(200);
    expect(otherPage.body.nextCursor).toEqual(expect.any(String));
    const mine = await timeline(owner.cookie, `/api/crm/leads/${leadId}/timeline?limit=3`);
    const [at, type, id, check] = Buffer.from(mine.body.nextCursor, 'base64url')
      .toString()
      .split('|');
    const altered = Buffer.from([at, type, otherLeadId, check].join('|')).toString('base64url');
    const retyped = Buffer.from([at, 'deal', id, check].join('|')).toString('base64url');
    for (const cursor of [otherPage.body.nextCursor, altered, retyped, 'not-a-cursor', '%%%']) {
      const res = await timeline(
        owner.cookie,
        `/api/crm/leads/${leadId}/timeline?cursor=${encodeURIComponent(cursor)}`,
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.message).toContain(`lead's timeline (${leadId})`);
    }
    // The unaltered cursor is accepted: the refusals above are about the cursor alone.
    const next = await timeline(
      owner.cookie,
      `/api/crm/leads/${leadId}/timeline?limit=3&cursor=${mine.body.nextCursor}`,
    );
    expect(next.status).toBe(200);
    expect(next.body.items.map((i: Item) => i.type)).toEqual(LEAD_TYPES.slice(3, 6));
  });

  it('refuses a bad limit with 400', async () => {
    for (const limit of ['0', '201', 'ten', '1.5']) {
      const res = await timeline(owner.cookie, `/api/crm/leads/${leadId}/timeline?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect(
      (await timeline(owner.cookie, `/api/crm/leads/${leadId}/timeline?limit=200`)).status,
    ).toBe(200);
  });

  it("answers 404 for another tenant's lead, an unknown id or a bad id, and for a contact's id", async () => {
    for (const id of [foreignLeadId, '00000000-0000-4000-8000-000000000000', 'nope', contactId]) {
      const res = await timeline(owner.cookie, `/api/crm/leads/${id}/timeline`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Lead not found' });
    }
    // The other tenant reads its own lead, which has nothing of this tenant's.
    const theirs = await timeline(other.cookie, `/api/crm/leads/${foreignLeadId}/timeline`);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual({ items: [], nextCursor: null });
  });
});

const CONTACT_TYPES = [
  'deal',
  'activity',
  'call',
  'chat_message',
  'email_reply',
  'email_sent',
  'payment',
  'order',
];

describe('GET /api/crm/contacts/:id/timeline', () => {
  it("lists the contact's deal, activity, call, chat, email, payment and order, newest first", async () => {
    const res = await timeline(owner.cookie, `/api/crm/contacts/${contactId}/timeline`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: Item) => i.type)).toEqual(CONTACT_TYPES);
    expect(res.body.items[4]).toMatchObject({
      summary: 'Replied to email: Pilot',
      data: { snippet: 'Sounds good' },
    });
  });

  it('pages through every item exactly once with limit=2', async () => {
    const pages = await walk(owner.cookie, `/api/crm/contacts/${contactId}/timeline`, 2);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 2]);
    expect(pages.flat().map((i) => i.type)).toEqual(CONTACT_TYPES);
    expect(new Set(pages.flat().map((i) => i.id)).size).toBe(CONTACT_TYPES.length);
  });

  it("refuses another contact's cursor and a lead's cursor with 400", async () => {
    const cole = await timeline(owner.cookie, `/api/crm/contacts/${otherContactId}/timeline`);
    expect(cole.body.items).toHaveLength(1);
    const cara = await timeline(owner.cookie, `/api/crm/contacts/${contactId}/timeline?limit=1`);
    const lena = await timeline(owner.cookie, `/api/crm/leads/${leadId}/timeline?limit=1`);
    // Cara's own cursor is good on Cara's timeline and refused on Cole's.
    expect(
      (
        await timeline(
          owner.cookie,
          `/api/crm/contacts/${contactId}/timeline?cursor=${cara.body.nextCursor}`,
        )
      ).status,
    ).toBe(200);
    for (const [id, cursor] of [
      [otherContactId, cara.body.nextCursor],
      [contactId, lena.body.nextCursor],
    ]) {
      const res = await timeline(owner.cookie, `/api/crm/contacts/${id}/timeline?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(res.body.message).toContain(`contact's timeline (${id})`);
    }
  });

  it("answers 404 for another tenant's contact and for a lead's id", async () => {
    for (const id of [foreignContactId, leadId]) {
      const res = await timeline(owner.cookie, `/api/crm/contacts/${id}/timeline`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Contact not found' });
    }
  });
});
