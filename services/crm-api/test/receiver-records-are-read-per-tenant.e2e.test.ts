import { withSystemScope, type Trx } from '@crm/shared/db';
import { addMember, createAccount, signIn, tenantSession, testDb } from '@crm/test-kit';
import request from 'supertest';
import { useStack } from './support/stack';

/*
 * e2e through the gateway: what the receivers and MCP store (conversations and messages,
 * orders, payments, calls, email opens / clicks / replies, network events) is listed and read
 * for its own tenant only, filtered by record and time, refused with a 400 on bad input, and
 * readable by a viewer. Rows are written as the receivers write them, into the same tables.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

const JAN = new Date('2026-01-10T10:00:00Z');
const FEB = new Date('2026-02-10T10:00:00Z');
const MAR = new Date('2026-03-10T10:00:00Z');

interface Seeded {
  tenantId: string;
  cookie: string;
  contactId: string;
  leadId: string;
  /** Per list path, the ids stored, newest first. */
  ids: Record<string, string[]>;
  /** Per list path, the id of its row stored in February. */
  feb: Record<string, string>;
  orders: { jan: string; feb: string; mar: string };
  payments: { jan: string; feb: string };
  calls: { jan: string; feb: string };
  messages: { m1: string; m2: string };
  opens: { onM1: string; onM2: string };
  network: { jan: string; feb: string };
  conversations: { messaging: string; chat: string };
  chatMessages: string[];
}

const id = async (query: { executeTakeFirstOrThrow(): Promise<{ id: string }> }) =>
  (await query.executeTakeFirstOrThrow()).id;

async function seedRows(trx: Trx, tenantId: string, tag: string) {
  const contactId = await id(
    trx
      .insertInto('crm_contacts')
      .values({ tenant_id: tenantId, email: `ann-${tag}@example.com` })
      .returning('id'),
  );
  const leadId = await id(
    trx
      .insertInto('crm_leads')
      .values({ tenant_id: tenantId, email: `lee-${tag}@example.com` })
      .returning('id'),
  );
  const shop = await id(
    trx
      .insertInto('storefront_connections')
      .values({ tenant_id: tenantId, platform: 'storefront_a', shop_identifier: `${tag}.shop` })
      .returning('id'),
  );
  const order = (n: string, at: Date, extra: { contact_id?: string; status?: string }) =>
    id(
      trx
        .insertInto('commerce_orders')
        .values({
          tenant_id: tenantId,
          connection_id: shop,
          external_order_id: `${tag}-${n}`,
          order_number: n,
          total: '10.00',
          currency: 'USD',
          status: 'pending',
          payload: JSON.stringify({ id: n }),
          created_at: at,
          ...extra,
        })
        .returning('id'),
    );
  const orders = {
    jan: await order('1001', JAN, { contact_id: contactId }),
    feb: await order('1002', FEB, {}),
    mar: await order('1003', MAR, { status: 'paid' }),
  };

  const payConnection = await id(
    trx
      .insertInto('payment_connections')
      .values({ tenant_id: tenantId, provider: 'stripe', webhook_secret_ciphertext: 'sealed' })
      .returning('id'),
  );
  const payment = (n: string, at: Date, kind: 'payment.succeeded' | 'payment.failed') =>
    id(
      trx
        .insertInto('payment_events')
        .values({
          tenant_id: tenantId,
          connection_id: payConnection,
          provider: 'stripe',
          external_event_id: `${tag}-evt-${n}`,
          kind,
          amount: '5.00',
          currency: 'USD',
          contact_id: kind === 'payment.succeeded' ? contactId : null,
          payload: JSON.stringify({ id: n }),
          created_at: at,
        })
        .returning('id'),
    );
  const payments = {
    jan: await payment('1', JAN, 'payment.succeeded'),
    feb: await payment('2', FEB, 'payment.failed'),
  };

  const call = (n: string, at: Date, status: string) =>
    id(
      trx
        .insertInto('call_logs')
        .values({
          tenant_id: tenantId,
          call_id: `${tag}-call-${n}`,
          direction: 'inbound',
          from_number: '+14155550100',
          to_number: '+14155550101',
          status,
          payload: JSON.stringify({ n }),
          created_at: at,
        })
        .returning('id'),
    );
  const calls = { jan: await call('1', JAN, 'completed'), feb: await call('2', FEB, 'missed') };

  const email = (n: string, link: { contact_id?: string; lead_id?: string }) =>
    id(
      trx
        .insertInto('email_messages')
        .values({ tenant_id: tenantId, provider_message_id: `${tag}-msg-${n}`, ...link })
        .returning('id'),
    );
  const messages = {
    m1: await email('1', { contact_id: contactId }),
    m2: await email('2', { lead_id: leadId }),
  };
  const opens = {
    onM1: await id(
      trx
        .insertInto('email_opens')
        .values({ tenant_id: tenantId, message_id: messages.m1, created_at: JAN })
        .returning('id'),
    ),
    onM2: await id(
      trx
        .insertInto('email_opens')
        .values({ tenant_id: tenantId, message_id: messages.m2, created_at: FEB })
        .returning('id'),
    ),
  };
  const clickJan = await id(
    trx
      .insertInto('email_clicks')
      .values({
        tenant_id: tenantId,
        message_id: messages.m1,
        target_url: 'https://example.com/a',
        created_at: JAN,
      })
      .returning('id'),
  );
  const clickFeb = await id(
    trx
      .insertInto('email_clicks')
      .values({
        tenant_id: tenantId,
        message_id: messages.m2,
        target_url: 'https://example.com/b',
        created_at: FEB,
      })
      .returning('id'),
  );
  const replyJan = await id(
    trx
      .insertInto('email_replies')
      .values({ tenant_id: tenantId, message_id: messages.m1, snippet: 'Yes', created_at: JAN })
      .returning('id'),
  );
  const replyFeb = await id(
    trx
      .insertInto('email_replies')
      .values({ tenant_id: tenantId, message_id: messages.m2, snippet: 'No', created_at: FEB })
      .returning('id'),
  );

  const account = await id(
    trx
      .insertInto('network_accounts')
      .values({ tenant_id: tenantId, external_account_id: `${tag}-acct` })
      .returning('id'),
  );
  const networkEvent = (n: string, at: Date, kind: string) =>
    id(
      trx
        .insertInto('network_events')
        .values({
          tenant_id: tenantId,
          account_id: account,
          external_event_id: `${tag}-ne-${n}`,
          kind,
          event_type: kind,
          payload: JSON.stringify({ n }),
          created_at: at,
        })
        .returning('id'),
    );
  const network = {
    jan: await networkEvent('1', JAN, 'network_profile_viewed'),
    feb: await networkEvent('2', FEB, 'network_message_received'),
  };

  const conversations = {
    messaging: await id(
      trx
        .insertInto('chat_conversations')
        .values({
          tenant_id: tenantId,
          channel: 'messaging',
          external_id: `${tag}-wa`,
          created_at: JAN,
        })
        .returning('id'),
    ),
    chat: await id(
      trx
        .insertInto('chat_conversations')
        .values({
          tenant_id: tenantId,
          channel: 'chat',
          external_id: `${tag}-chat`,
          created_at: FEB,
        })
        .returning('id'),
    ),
  };
  await trx
    .insertInto('chat_conversation_details')
    .values({
      conversation_id: conversations.chat,
      tenant_id: tenantId,
      status: 'open',
      contact_id: contactId,
    })
    .execute();
  const chatMessages: string[] = [];
  for (const [n, at] of [JAN, FEB, MAR].entries()) {
    chatMessages.push(
      await id(
        trx
          .insertInto('chat_messages')
          .values({
            tenant_id: tenantId,
            conversation_id: conversations.messaging,
            external_id: `${tag}-wamid-${n}`,
            direction: n === 1 ? 'outbound' : 'inbound',
            body: `message ${n}`,
            sent_at: at,
          })
          .returning('id'),
      ),
    );
  }

  return {
    contactId,
    leadId,
    orders,
    payments,
    calls,
    messages,
    opens,
    network,
    conversations,
    chatMessages,
    ids: {
      '/api/crm/orders': [orders.mar, orders.feb, orders.jan],
      '/api/crm/payments': [payments.feb, payments.jan],
      '/api/crm/calls': [calls.feb, calls.jan],
      '/api/crm/email-events/opens': [opens.onM2, opens.onM1],
      '/api/crm/email-events/clicks': [clickFeb, clickJan],
      '/api/crm/email-events/replies': [replyFeb, replyJan],
      '/api/crm/network-events': [network.feb, network.jan],
      '/api/crm/conversations': [conversations.chat, conversations.messaging],
    },
    feb: {
      '/api/crm/orders': orders.feb,
      '/api/crm/payments': payments.feb,
      '/api/crm/calls': calls.feb,
      '/api/crm/email-events/opens': opens.onM2,
      '/api/crm/email-events/clicks': clickFeb,
      '/api/crm/email-events/replies': replyFeb,
      '/api/crm/network-events': network.feb,
    },
  };
}

async function seed(tag: string): Promise<Seeded> {
  const { tenantId, cookie } = await tenantSession(stack, database);
  const rows = await withSystemScope(database.db, (trx) => seedRows(trx, tenantId, tag));
  return { tenantId, cookie, ...rows };
}

const RECORD_LISTS = [
  '/api/crm/orders',
  '/api/crm/payments',
  '/api/crm/calls',
  '/api/crm/email-events/opens',
  '/api/crm/email-events/clicks',
  '/api/crm/email-events/replies',
  '/api/crm/network-events',
] as const;
const LISTS = [...RECORD_LISTS, '/api/crm/conversations'] as const;

const get = (cookie: string, path: string, query: Record<string, string> = {}) =>
  request(stack.url).get(path).query(query).set('Cookie', cookie);
const idsOf = (body: { items: Array<{ id: string }> }) => body.items.map((item) => item.id);

let a: Seeded;
let b: Seeded;
beforeAll(async () => {
  a = await seed(`a${Date.now()}`);
  b = await seed(`b${Date.now()}`);
});

describe('receiver records through /api/crm', () => {
  it.each(LISTS)('%s lists its tenant rows only, newest first, as a Page', async (path) => {
    for (const tenant of [a, b]) {
      const res = await get(tenant.cookie, path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: tenant.ids[path].length, page: 1, pageSize: 20 });
      expect(idsOf(res.body)).toEqual(tenant.ids[path]);
    }
    const ascending = await get(a.cookie, path, { sortOrder: 'asc', pageSize: '1', page: '2' });
    expect(idsOf(ascending.body)).toEqual([a.ids[path].at(-2)]);
    expect(ascending.body).toMatchObject({ totalPages: a.ids[path].length });
  });

  it.each(LISTS)(
    '%s/:id reads its own tenant row, and another tenant row is a 404',
    async (path) => {
      const own = a.ids[path][0];
      const res = await get(a.cookie, `${path}/${own}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const [record] = Object.values(res.body.data) as Array<{ id: string }>;
      expect(record.id).toBe(own);
      for (const foreign of [
        b.ids[path][0],
        'not-a-uuid',
        '00000000-0000-4000-8000-000000000000',
      ]) {
        const other = await get(a.cookie, `${path}/${foreign}`);
        expect({ foreign, status: other.status, code: other.body.code }).toEqual({
          foreign,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
    },
  );

  it('a detail carries the stored provider body; a list item does not', async () => {
    const detail = await get(a.cookie, `/api/crm/orders/${a.orders.jan}`);
    expect(detail.body.data.order).toMatchObject({
      id: a.orders.jan,
      order_number: '1001',
      contact_id: a.contactId,
      total: '10.00',
      payload: { id: '1001' },
    });
    const list = await get(a.cookie, '/api/crm/orders');
    expect(list.body.items[0]).not.toHaveProperty('payload');
    expect(list.body.items[0]).not.toHaveProperty('tenant_id');
  });

  it.each(RECORD_LISTS)(
    '%s takes from (inclusive) and to (exclusive) on created_at',
    async (path) => {
      const range = { from: '2026-02-01T00:00:00Z', to: '2026-03-01T00:00:00+00:00' };
      const res = await get(a.cookie, path, range);
      expect(res.status).toBe(200);
      expect(idsOf(res.body)).toEqual([a.feb[path]]);
      const exact = await get(a.cookie, path, { from: FEB.toISOString(), to: MAR.toISOString() });
      expect(idsOf(exact.body)).toEqual([a.feb[path]]);
      const since = await get(a.cookie, path, { from: '2026-02-01T00:00:00Z' });
      expect(idsOf(since.body)).toEqual(a.ids[path].slice(0, -1));
    },
  );

  it.each([
    ['/api/crm/orders', { contact_id: 'contact' }, (s: Seeded) => [s.orders.jan]],
    ['/api/crm/orders', { status: 'paid' }, (s: Seeded) => [s.orders.mar]],
    ['/api/crm/payments', { contact_id: 'contact' }, (s: Seeded) => [s.payments.jan]],
    ['/api/crm/payments', { kind: 'payment.failed' }, (s: Seeded) => [s.payments.feb]],
    ['/api/crm/calls', { status: 'missed' }, (s: Seeded) => [s.calls.feb]],
    ['/api/crm/email-events/opens', { contact_id: 'contact' }, (s: Seeded) => [s.opens.onM1]],
    ['/api/crm/email-events/opens', { lead_id: 'lead' }, (s: Seeded) => [s.opens.onM2]],
    ['/api/crm/email-events/opens', { message_id: 'm2' }, (s: Seeded) => [s.opens.onM2]],
    ['/api/crm/network-events', { kind: 'network_profile_viewed' }, (s: Seeded) => [s.network.jan]],
    [
      '/api/crm/conversations',
      { channel: 'messaging' },
      (s: Seeded) => [s.conversations.messaging],
    ],
    ['/api/crm/conversations', { status: 'open' }, (s: Seeded) => [s.conversations.chat]],
    ['/api/crm/conversations', { contact_id: 'contact' }, (s: Seeded) => [s.conversations.chat]],
  ] as const)('%s filtered by %j lists only the matching rows', async (path, filter, expected) => {
    const value = (s: Seeded, v: string) =>
      ({ contact: s.contactId, lead: s.leadId, m2: s.messages.m2 })[v] ?? v;
    const query = (s: Seeded) =>
      Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, value(s, v)]));
    const res = await get(a.cookie, path, query(a));
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual(expected(a));
    // Another tenant's record id matches nothing here.
    const foreign = await get(a.cookie, path, query(b));
    if (Object.values(filter).some((v) => ['contact', 'lead', 'm2'].includes(v))) {
      expect(idsOf(foreign.body)).toEqual([]);
    }
  });

  it.each([
    ['/api/crm/orders', { from: 'yesterday' }, 'from must be an ISO 8601 date-time'],
    ['/api/crm/orders', { to: '2026-02-01' }, 'to must be an ISO 8601 date-time'],
    ['/api/crm/orders', { from: '2026-02-01T00:00:00' }, 'from must be an ISO 8601 date-time'],
    [
      '/api/crm/calls',
      { from: '2026-03-01T00:00:00Z', to: '2026-02-01T00:00:00Z' },
      'from must be before to',
    ],
    ['/api/crm/payments', { contact_id: 'ann' }, 'contact_id must be an id (uuid)'],
    ['/api/crm/payments', { kind: 'payment.maybe' }, 'kind must be one of'],
    ['/api/crm/network-events', { kind: 'poke' }, 'kind must be one of'],
    ['/api/crm/email-events/clicks', { lead_id: '1' }, 'lead_id must be an id (uuid)'],
    ['/api/crm/network-events', { sortBy: 'payload' }, 'sortBy must be one of: created_at'],
    ['/api/crm/email-events/replies', { pageSize: '101' }, 'pageSize must be at most 100'],
    ['/api/crm/conversations', { status: 'archived' }, 'status must be one of'],
    ['/api/crm/conversations', { channel: 'Not A Channel' }, 'channel must be'],
    ['/api/crm/conversations', { sortBy: 'sent_at' }, 'sortBy must be one of'],
  ])('%s?%j is a 400 VALIDATION_ERROR (%s)', async (path, query, message) => {
    const res = await get(a.cookie, path, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.message).toContain(message);
    expect(res.body.details.issues).toEqual([
      expect.objectContaining({ message: expect.stringContaining(message) }),
    ]);
  });

  it("a conversation's messages come in pages, newest page first, oldest first within a page", async () => {
    const [m0, m1, m2] = a.chatMessages;
    const path = `/api/crm/conversations/${a.conversations.messaging}/messages`;
    const first = await get(a.cookie, path, { pageSize: '2' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
    expect(idsOf(first.body)).toEqual([m1, m2]);
    expect(first.body.items[1]).toMatchObject({ body: 'message 2', direction: 'inbound' });
    const second = await get(a.cookie, path, { pageSize: '2', page: '2' });
    expect(idsOf(second.body)).toEqual([m0]);
    const fromTheStart = await get(a.cookie, path, { pageSize: '2', sortOrder: 'asc' });
    expect(idsOf(fromTheStart.body)).toEqual([m0, m1]);
    const empty = await get(a.cookie, `/api/crm/conversations/${a.conversations.chat}/messages`);
    expect(empty.body).toMatchObject({ items: [], total: 0 });
    for (const other of [b.conversations.messaging, 'nope']) {
      const res = await get(a.cookie, `/api/crm/conversations/${other}/messages`);
      expect(res.status).toBe(404);
    }
  });

  it('a conversation reads with its details', async () => {
    const res = await get(a.cookie, `/api/crm/conversations/${a.conversations.chat}`);
    expect(res.body.data.conversation).toMatchObject({
      id: a.conversations.chat,
      channel: 'chat',
      status: 'open',
      contact_id: a.contactId,
    });
  });

  it('a viewer reads every list and detail', async () => {
    const viewer = await createAccount(database, 'viewer');
    await addMember(database, a.tenantId, viewer.id, 'viewer');
    const cookie = await signIn(stack.gateway.app, viewer.email);
    for (const path of LISTS) {
      const list = await get(cookie, path);
      expect({ path, status: list.status, ids: idsOf(list.body) }).toEqual({
        path,
        status: 200,
        ids: a.ids[path],
      });
      expect((await get(cookie, `${path}/${a.ids[path][0]}`)).status).toBe(200);
    }
    const messages = await get(
      cookie,
      `/api/crm/conversations/${a.conversations.messaging}/messages`,
    );
    expect(messages.body.total).toBe(3);
  });
});
