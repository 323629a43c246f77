import { createHash, createHmac, randomInt, randomUUID } from 'node:crypto';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  rowsWith,
  tenantRows,
  testDb,
} from '@crm/test-kit';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * POST /api/messaging/webhooks/cloud-api (specified: `x-hub-signature-256` with
 * MESSAGING_APP_SECRET) through the real gateway against real Postgres: one stack with
 * MESSAGING_APP_SECRET (signatures required) and one without (verification skipped, with
 * warnings). Other test files write chat rows and messaging ledger rows at the same time, so
 * "nothing written" is counted in the tenant a delivery names (its chat rows, its ledger rows,
 * its outbox events); a delivery that belongs to no tenant is shown to have stored nothing by
 * its own message ids and customer, and by its ledger row.
 */
const SECRET = 'messaging-app-secret-for-tests';
const signed = useReceiverStack({ MESSAGING_APP_SECRET: SECRET });
const unsigned = useReceiverStack({});
const db = testDb();
afterAll(() => db.close());

const PATH = '/api/messaging/webhooks/cloud-api';
const WA_ID = '15551234567';
const T1 = 1717000000;

const sign = (raw: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
const digestId = (raw: string) => `sha256:${createHash('sha256').update(raw).digest('hex')}`;
const wamid = () => `wamid.${randomUUID()}`;
/** A customer wa_id no other test uses (conversations are keyed by it). */
const uniqueWaId = () => `1555${String(randomInt(0, 1e9)).padStart(9, '0')}`;
const at = (seconds: number) => new Date(seconds * 1000);

function post(raw: string, headers: Record<string, string> = { 'x-hub-signature-256': sign(raw) }) {
  return postTo(signed.url, raw, headers);
}

function postTo(base: string, raw: string, headers: Record<string, string>) {
  const req = request(base).post(PATH).set('content-type', 'application/json');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(raw);
}

interface ChangeValue {
  contacts?: unknown[];
  messages?: unknown[];
  statuses?: unknown[];
}

const change = (phoneNumberId: string, value: ChangeValue) => ({
  field: 'messages',
  value: {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
    ...value,
  },
});

/** A delivery as Meta sends it: one entry, one `messages` change. */
const delivery = (phoneNumberId: string, value: ChangeValue) =>
  JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA-1', changes: [change(phoneNumberId, value)] }],
  });

const contact = (waId: string, name: string) => ({ profile: { name }, wa_id: waId });
const textMessage = (id: string, from: string, seconds: number, body: string) => ({
  from,
  id,
  timestamp: String(seconds),
  type: 'text',
  text: { body },
});
const status = (id: string, value: string, recipient: string, seconds: number) => ({
  id,
  status: value,
  timestamp: String(seconds),
  recipient_id: recipient,
});

/** A tenant owning a fresh business number. */
async function messagingTenant() {
  const tenant = await createTenant(db);
  const phoneNumberId = `pn-${randomUUID()}`;
  const account = await insertRow(db, 'messaging_accounts', {
    proven_at: new Date(), // a proven claim: its deliveries are routed
    tenant_id: tenant.id,
    phone_number_id: phoneNumberId,
    display_phone_number: '+15550001111',
  });
  return { tenantId: tenant.id, phoneNumberId, accountId: account.id };
}

async function ledgerOf(raw: string) {
  return (await ledgerRows(db, 'messaging')).filter((row) => row.delivery_id === digestId(raw));
}

const conversations = (tenantId: string) => tenantRows(db, 'chat_conversations', tenantId);
const messages = (tenantId: string) => tenantRows(db, 'chat_messages', tenantId);
const events = async (tenantId: string) =>
  (await outboxEvents(db, tenantId)).map(
    (e) => e.envelope as { type: string; record: unknown; data: Record<string, unknown> },
  );

/** Everything a messaging delivery can write for a tenant, to show a refused one wrote none of it. */
async function everything(tenantId: string) {
  return {
    counts: {
      chat_conversations: (await conversations(tenantId)).length,
      chat_messages: (await messages(tenantId)).length,
    },
    ledger: (await ledgerRows(db, 'messaging')).filter((row) => row.tenant_id === tenantId).length,
    events: (await outboxEvents(db, tenantId)).length,
  };
}

/** The chat rows of these message ids and customers, in any tenant. */
async function chatRowsOf(messageIds: string[], waIds: string[] = []) {
  return {
    messages: await rowsWith(db, 'chat_messages', 'external_id', messageIds),
    conversations: await rowsWith(db, 'chat_conversations', 'external_id', waIds),
  };
}
const NO_CHAT_ROWS = { messages: [], conversations: [] };

const RECEIVED = { received: true };
const DUPLICATE = { received: true, duplicate: true };

describe('with MESSAGING_APP_SECRET: an inbound text message', () => {
  let tenant: Awaited<ReturnType<typeof messagingTenant>>;
  const firstId = wamid();
  let raw: string;
  beforeAll(async () => {
    tenant = await messagingTenant();
    raw = delivery(tenant.phoneNumberId, {
      contacts: [contact(WA_ID, 'Ann Lee')],
      messages: [textMessage(firstId, WA_ID, T1, 'Hi, is the blue one in stock?')],
    });
  });

  it('200, a conversation with the customer, the message, message.received, a verified ledger row', async () => {
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const [conversation, ...otherConversations] = await conversations(tenant.tenantId);
    expect(otherConversations).toEqual([]);
    expect(conversation).toEqual({
      id: expect.any(String),
      tenant_id: tenant.tenantId,
      channel: 'messaging',
      messaging_account_id: tenant.accountId,
      external_id: WA_ID,
      contact_name: 'Ann Lee',
      last_message_at: at(T1),
      created_at: expect.any(Date),
    });
    const stored = await messages(tenant.tenantId);
    expect(stored).toEqual([
      {
        id: expect.any(String),
        tenant_id: tenant.tenantId,
        conversation_id: conversation.id,
        external_id: firstId,
        direction: 'inbound',
        message_type: 'text',
        body: 'Hi, is the blue one in stock?',
        status: null,
        sent_at: at(T1),
        payload: textMessage(firstId, WA_ID, T1, 'Hi, is the blue one in stock?'),
        created_at: expect.any(Date),
        updated_at: expect.any(Date),
      },
    ]);
    expect(await events(tenant.tenantId)).toEqual([
      expect.objectContaining({
        type: 'message.received',
        tenant_id: tenant.tenantId,
        record: { module: 'chat_messages', id: stored[0].id },
        data: {
          conversation_id: conversation.id,
          external_id: firstId,
          from: WA_ID,
          message_type: 'text',
          sent_at: at(T1).toISOString(),
        },
      }),
    ]);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({
        provider: 'messaging',
        delivery_id: digestId(raw),
        tenant_id: tenant.tenantId,
        event_type: 'whatsapp_business_account',
        content_type: 'application/json',
        raw_body: raw,
        verification: 'verified',
        outcome: 'processed',
        attempts: 1,
      }),
    ]);
  });

  it('the same bytes again: 200 duplicate, nothing new written', async () => {
    const before = await everything(tenant.tenantId);
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DUPLICATE);
    expect(await everything(tenant.tenantId)).toEqual(before);
  });

  it('the same message id in another delivery is stored once; the new one is added, the conversation moves on', async () => {
    const secondId = wamid();
    const next = delivery(tenant.phoneNumberId, {
      contacts: [contact(WA_ID, 'Ann B. Lee')],
      messages: [
        textMessage(firstId, WA_ID, T1, 'Hi, is the blue one in stock?'),
        {
          from: WA_ID,
          id: secondId,
          timestamp: String(T1 + 60),
          type: 'image',
          image: { id: 'media-1', mime_type: 'image/jpeg' },
        },
      ],
    });
    const res = await post(next);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const [conversation, ...others] = await conversations(tenant.tenantId);
    expect(others).toEqual([]);
    expect(conversation).toMatchObject({
      contact_name: 'Ann B. Lee',
      last_message_at: at(T1 + 60),
    });
    const stored = await messages(tenant.tenantId);
    expect(stored.map((m) => m.external_id)).toEqual([firstId, secondId]);
    expect(stored[1]).toMatchObject({
      conversation_id: conversation.id,
      direction: 'inbound',
      message_type: 'image',
      body: null,
      sent_at: at(T1 + 60),
      payload: { image: { id: 'media-1', mime_type: 'image/jpeg' } },
    });
    const all = await events(tenant.tenantId);
    expect(all.map((e) => [e.type, e.record])).toEqual([
      ['message.received', { module: 'chat_messages', id: stored[0].id }],
      ['message.received', { module: 'chat_messages', id: stored[1].id }],
    ]);
    expect(await ledgerOf(next)).toEqual([
      expect.objectContaining({
        outcome: 'processed',
        detail:
          'messages 1 inserted, 1 duplicate; statuses 0 applied, 0 unchanged; 0 unmatched changes, 0 unreadable items',
      }),
    ]);
  });

  it('an older message does not move last_message_at back; no name in contacts keeps the stored one', async () => {
    const old = delivery(tenant.phoneNumberId, {
      messages: [textMessage(wamid(), WA_ID, T1 - 3600, 'sent an hour earlier')],
    });
    expect((await post(old)).status).toBe(200);
    const [conversation] = await conversations(tenant.tenantId);
    expect(conversation).toMatchObject({
      contact_name: 'Ann B. Lee',
      last_message_at: at(T1 + 60),
    });
    expect(await messages(tenant.tenantId)).toHaveLength(3);
  });
});

describe('with MESSAGING_APP_SECRET: delivery statuses', () => {
  let tenant: Awaited<ReturnType<typeof messagingTenant>>;
  let conversationId: string;
  let messageId: string;
  const sentId = wamid();
  beforeAll(async () => {
    tenant = await messagingTenant();
    conversationId = (
      await insertRow(db, 'chat_conversations', {
        tenant_id: tenant.tenantId,
        external_id: WA_ID,
        contact_name: 'Bo',
      })
    ).id;
    messageId = (
      await insertRow(db, 'chat_messages', {
        tenant_id: tenant.tenantId,
        conversation_id: conversationId,
        external_id: sentId,
        direction: 'outbound',
        body: 'Your order shipped',
        status: 'sent',
      })
    ).id;
  });

  const statusDelivery = (value: string, seconds: number) =>
    delivery(tenant.phoneNumberId, { statuses: [status(sentId, value, WA_ID, seconds)] });

  it('delivered then read: the stored message follows, one message.status_updated per change', async () => {
    for (const [value, seconds] of [
      ['delivered', T1 + 5],
      ['read', T1 + 9],
    ] as const) {
      const res = await post(statusDelivery(value, seconds));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);
    }
    const [stored] = await messages(tenant.tenantId);
    expect(stored).toMatchObject({ id: messageId, status: 'read', body: 'Your order shipped' });
    expect(await events(tenant.tenantId)).toEqual([
      expect.objectContaining({
        type: 'message.status_updated',
        record: { module: 'chat_messages', id: messageId },
        data: {
          conversation_id: conversationId,
          external_id: sentId,
          status: 'delivered',
          previous_status: 'sent',
        },
      }),
      expect.objectContaining({
        type: 'message.status_updated',
        data: {
          conversation_id: conversationId,
          external_id: sentId,
          status: 'read',
          previous_status: 'delivered',
        },
      }),
    ]);
  });

  it('a late `delivered` after `read` (out of order) changes nothing and emits nothing', async () => {
    const before = await everything(tenant.tenantId);
    const late = statusDelivery('delivered', T1 + 6);
    const res = await post(late);
    expect(res.status).toBe(200);
    expect((await messages(tenant.tenantId))[0]).toMatchObject({ status: 'read' });
    expect(await everything(tenant.tenantId)).toEqual({ ...before, ledger: before.ledger + 1 });
    expect(await ledgerOf(late)).toEqual([
      expect.objectContaining({
        outcome: 'processed',
        detail:
          'messages 0 inserted, 0 duplicate; statuses 0 applied, 1 unchanged; 0 unmatched changes, 0 unreadable items',
      }),
    ]);
  });

  it('`failed` always applies', async () => {
    expect((await post(statusDelivery('failed', T1 + 20))).status).toBe(200);
    expect((await messages(tenant.tenantId))[0]).toMatchObject({ status: 'failed' });
    expect((await events(tenant.tenantId)).at(-1)).toMatchObject({
      type: 'message.status_updated',
      data: { status: 'failed', previous_status: 'read' },
    });
  });

  it("a status of a message we have no row of: the outbound message is recorded in the recipient's conversation", async () => {
    const unknownId = wamid();
    const otherWaId = '15557654321';
    const res = await post(
      delivery(tenant.phoneNumberId, { statuses: [status(unknownId, 'sent', otherWaId, T1 + 30)] }),
    );
    expect(res.status).toBe(200);
    const conversation = (await conversations(tenant.tenantId)).find(
      (c) => c.external_id === otherWaId,
    );
    expect(conversation).toMatchObject({
      channel: 'messaging',
      messaging_account_id: tenant.accountId,
      contact_name: null,
      last_message_at: at(T1 + 30),
    });
    const created = (await messages(tenant.tenantId)).find((m) => m.external_id === unknownId);
    expect(created).toMatchObject({
      conversation_id: conversation?.id,
      direction: 'outbound',
      status: 'sent',
      body: null,
      sent_at: at(T1 + 30),
    });
    expect((await events(tenant.tenantId)).at(-1)).toEqual(
      expect.objectContaining({
        type: 'message.status_updated',
        record: { module: 'chat_messages', id: created?.id },
        data: {
          conversation_id: conversation?.id,
          external_id: unknownId,
          status: 'sent',
          previous_status: null,
        },
      }),
    );
  });
});

describe('with MESSAGING_APP_SECRET: deliveries that store nothing but are acknowledged', () => {
  it('an unknown phone_number_id: 200, ledger unmatched without a tenant, no rows', async () => {
    const [id, customer] = [wamid(), uniqueWaId()];
    const raw = delivery(`pn-unknown-${randomUUID()}`, {
      contacts: [contact(customer, 'Nobody Known')],
      messages: [textMessage(id, customer, T1, 'hello?')],
    });
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    expect(await chatRowsOf([id], [customer])).toEqual(NO_CHAT_ROWS);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({ tenant_id: null, verification: 'verified', outcome: 'unmatched' }),
    ]);
  });

  // Where the shape can carry them, a payload names a tenant's number and a fresh message id:
  // neither that tenant nor any other stores anything. The others name nothing to look for:
  // the tenant's counts and the ledger row are the check.
  it.each<[string, (phoneNumberId: string, message: object) => unknown]>([
    [
      'another object',
      (pn, message) => ({
        object: 'page',
        entry: [{ id: 'W', changes: [change(pn, { messages: [message] })] }],
      }),
    ],
    [
      'another field',
      (pn, message) => ({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'W',
            changes: [
              {
                field: 'account_update',
                value: {
                  event: 'VERIFIED',
                  metadata: { phone_number_id: pn },
                  messages: [message],
                },
              },
            ],
          },
        ],
      }),
    ],
    [
      'a change without metadata',
      (_pn, message) => ({
        object: 'whatsapp_business_account',
        entry: [{ changes: [{ field: 'messages', value: { messages: [message] } }] }],
      }),
    ],
    [
      'entry not an array',
      (pn, message) => ({
        object: 'whatsapp_business_account',
        entry: { changes: [change(pn, { messages: [message] })] },
      }),
    ],
    ['a JSON array', () => [1, 2, 3]],
    ['JSON null', () => null],
    ['a JSON string', () => 'hello'],
  ])('%s: 200, ledger ignored, no rows', async (_label, payload) => {
    const tenant = await messagingTenant();
    const id = wamid();
    const raw = JSON.stringify(payload(tenant.phoneNumberId, textMessage(id, WA_ID, T1, 'hello?')));
    const before = await everything(tenant.tenantId);
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    expect(await everything(tenant.tenantId)).toEqual(before);
    expect(await chatRowsOf([id])).toEqual(NO_CHAT_ROWS);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({
        tenant_id: null,
        outcome: 'ignored',
        detail: 'no messages changes',
      }),
    ]);
  });

  it('unreadable items are skipped, the readable ones stored', async () => {
    const tenant = await messagingTenant();
    const goodId = wamid();
    const raw = delivery(tenant.phoneNumberId, {
      messages: [
        { from: WA_ID, type: 'text', text: { body: 'no id' } },
        textMessage(goodId, WA_ID, T1, 'ok'),
      ],
      statuses: [{ id: wamid(), status: 'read' }],
    });
    expect((await post(raw)).status).toBe(200);
    expect((await messages(tenant.tenantId)).map((m) => m.external_id)).toEqual([goodId]);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({
        outcome: 'processed',
        detail:
          'messages 1 inserted, 0 duplicate; statuses 0 applied, 0 unchanged; 0 unmatched changes, 2 unreadable items',
      }),
    ]);
  });

  it('NUL characters and lone surrogates (which Postgres cannot hold) are stored as U+FFFD, not a 500', async () => {
    const tenant = await messagingTenant();
    const id = wamid();
    const raw = delivery(tenant.phoneNumberId, {
      contacts: [contact(WA_ID, 'Nul\u0000Name')],
      messages: [
        {
          ...textMessage(id, WA_ID, T1, 'a\u0000b'),
          extra: { 'k\u0000': 'v', lone: '\ud800x\udc00', pair: '\ud83d\ude00' },
        },
      ],
    });
    expect(raw).toContain('\\u0000');
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(await conversations(tenant.tenantId)).toEqual([
      expect.objectContaining({ contact_name: 'Nul\uFFFDName' }),
    ]);
    expect(await messages(tenant.tenantId)).toEqual([
      expect.objectContaining({
        external_id: id,
        body: 'a\uFFFDb',
        payload: expect.objectContaining({
          extra: { 'k\uFFFD': 'v', lone: '\uFFFDx\uFFFD', pair: '\ud83d\ude00' },
        }),
      }),
    ]);
    expect(await ledgerOf(raw)).toEqual([expect.objectContaining({ outcome: 'processed' })]);
  });

  it("one delivery for two tenants' numbers: each stores its own, the ledger row names neither", async () => {
    const [a, b] = [await messagingTenant(), await messagingTenant()];
    const [idA, idB] = [wamid(), wamid()];
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA-1',
          changes: [change(a.phoneNumberId, { messages: [textMessage(idA, WA_ID, T1, 'to a')] })],
        },
        {
          id: 'WABA-2',
          changes: [change(b.phoneNumberId, { messages: [textMessage(idB, WA_ID, T1, 'to b')] })],
        },
      ],
    });
    expect((await post(raw)).status).toBe(200);
    expect((await messages(a.tenantId)).map((m) => [m.external_id, m.body])).toEqual([
      [idA, 'to a'],
    ]);
    expect((await messages(b.tenantId)).map((m) => [m.external_id, m.body])).toEqual([
      [idB, 'to b'],
    ]);
    expect((await events(a.tenantId)).map((e) => e.type)).toEqual(['message.received']);
    expect((await events(b.tenantId)).map((e) => e.type)).toEqual(['message.received']);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({ tenant_id: null, outcome: 'processed' }),
    ]);
  });
});

describe('with MESSAGING_APP_SECRET: refused deliveries write nothing', () => {
  let tenant: Awaited<ReturnType<typeof messagingTenant>>;
  let raw: string;
  beforeAll(async () => {
    tenant = await messagingTenant();
    raw = delivery(tenant.phoneNumberId, { messages: [textMessage(wamid(), WA_ID, T1, 'forged')] });
  });

  const UNAUTHORIZED = (message: string) => ({
    success: false,
    error: 'Invalid signature',
    code: 'UNAUTHORIZED',
    message,
    details: null,
  });
  const MISMATCH = 'The signature does not match the request body';

  it.each<[string, () => Record<string, string>, string]>([
    ['no signature header', () => ({}), 'The x-hub-signature-256 header is required'],
    [
      'a signature by another secret',
      () => ({ 'x-hub-signature-256': sign(raw, 'not-the-secret') }),
      MISMATCH,
    ],
    ['a signature of other bytes', () => ({ 'x-hub-signature-256': sign(`${raw} `) }), MISMATCH],
    ['the bare hex digest', () => ({ 'x-hub-signature-256': sign(raw).slice(7) }), MISMATCH],
    [
      'the signature under another header name',
      () => ({ 'x-hub-signature': sign(raw) }),
      'The x-hub-signature-256 header is required',
    ],
  ])('%s: 401', async (_label, headers, message) => {
    const before = await everything(tenant.tenantId);
    const res = await post(raw, headers());
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED(message));
    expect(await everything(tenant.tenantId)).toEqual(before);
    expect(await ledgerOf(raw)).toEqual([]);
  });

  it('a correctly signed body that is not JSON: 400, nothing written', async () => {
    const notJson = '{"object": "whatsapp_business_account", ';
    const before = await everything(tenant.tenantId);
    const res = await post(notJson);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: 'The request body is not valid JSON',
      details: null,
    });
    expect(await everything(tenant.tenantId)).toEqual(before);
    expect(await ledgerOf(notJson)).toEqual([]);
  });

  it('a signed body nested deeper than any real payload: 400, nothing written (never a 500)', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const nested = delivery(tenant.phoneNumberId, {
      messages: [{ ...textMessage(wamid(), WA_ID, T1, 'deep'), extra: 'DEEP' }],
    }).replace('"DEEP"', deep);
    const before = await everything(tenant.tenantId);
    const res = await post(nested);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: 'The request body nests deeper than 64 levels',
      details: null,
    });
    expect(await everything(tenant.tenantId)).toEqual(before);
    expect(await ledgerOf(nested)).toEqual([]);
  });

  it('the signed stack never warns about skipped verification', () => {
    expect(signed.log.text()).not.toMatch(/MESSAGING_APP_SECRET is unset/);
  });
});

describe('without MESSAGING_APP_SECRET: verification skipped, loudly', () => {
  const warnings = () =>
    unsigned.log
      .lines()
      .filter(
        (line) => line.level === 'warn' && /MESSAGING_APP_SECRET is unset/.test(String(line.msg)),
      );

  it('a warning was logged when the receiver was built (start-up, before any request)', () => {
    expect(warnings().filter((line) => line.request_id === undefined)).toEqual([
      expect.objectContaining({ receiver: 'messaging' }),
    ]);
  });

  it.each([
    ['no signature', {}],
    ['a signature nobody could check', { 'x-hub-signature-256': 'sha256=00' }],
  ])(
    '%s: accepted, ledger verification `skipped`, a warning for this request',
    async (_label, headers) => {
      const tenant = await messagingTenant();
      const id = wamid();
      const raw = delivery(tenant.phoneNumberId, {
        messages: [textMessage(id, WA_ID, T1, 'unsigned hello')],
      });
      const res = await postTo(unsigned.url, raw, headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);
      expect((await messages(tenant.tenantId)).map((m) => m.external_id)).toEqual([id]);
      expect(await ledgerOf(raw)).toEqual([
        expect.objectContaining({
          tenant_id: tenant.tenantId,
          verification: 'skipped',
          outcome: 'processed',
        }),
      ]);
      expect(
        warnings().filter((line) => line.request_id === res.headers['x-request-id']),
      ).toHaveLength(1);
    },
  );

  it('the bodies never reach the log', () => {
    expect(unsigned.log.text()).not.toContain('unsigned hello');
    expect(signed.log.text()).not.toContain('Hi, is the blue one in stock?');
  });
});
