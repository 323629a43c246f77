import { randomBytes, randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  rowsWith,
  tenantRowCounts,
  tenantRows,
  testDb,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { Webhook } from 'svix';
import { useReceiverStack } from './support/receiver-stack';

/**
 * POST /api/webhooks/email through the real gateway in front of a real
 * webhook-ingest, against real Postgres. Deliveries are signed with svix, as the provider
 * does; every stored row, outbox event and ledger row is read back, and every refused
 * delivery is shown to write nothing: in its message's tenant, and for a delivery about no
 * message of ours by its provider message id and its ledger row.
 */
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const PATH = '/api/webhooks/email';
const database = testDb();
const stack = useReceiverStack({ EMAIL_WEBHOOK_SECRET: SECRET });
afterAll(() => database.close());

interface SendOptions {
  id?: string;
  at?: Date;
  secret?: string;
  /** Header names to leave out. */
  omit?: string[];
  /** Sign these bytes but send the body given (a body altered in transit). */
  signedBody?: string;
  base?: string;
}

function send(body: unknown, options: SendOptions = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  const headers: Record<string, string> = {
    'email-webhook-id': id,
    'email-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'email-webhook-signature': new Webhook(options.secret ?? SECRET).sign(
      id,
      at,
      options.signedBody ?? raw,
    ),
  };
  for (const name of options.omit ?? []) delete headers[name];
  const req = request(options.base ?? stack.url)
    .post(PATH)
    .set('content-type', 'application/json')
    .set(headers)
    .send(raw);
  return Object.assign(req, { webhookId: id, raw });
}

async function ledgerOf(webhookId: string) {
  return (await ledgerRows(database, 'email')).filter((row) => row.delivery_id === webhookId);
}

/** A tenant and one of its sent emails, known to the provider as `providerMessageId`. */
async function sentMessage() {
  const tenant = await createTenant(database);
  const providerMessageId = `em_${randomUUID()}`;
  const message = await insertRow(database, 'email_messages', {
    tenant_id: tenant.id,
    provider_message_id: providerMessageId,
    to_email: 'lead@example.com',
    subject: 'Our proposal',
  });
  return { tenantId: tenant.id, messageId: message.id, providerMessageId };
}

const ACTIVITY_TABLES = ['email_opens', 'email_clicks', 'email_replies'];

/**
 * The tenant's activity rows. Counted for the tenant, not table-wide: other test files (replays,
 * inbound events, secret rotation) store email activity and ledger rows in the same database
 * at the same time.
 */
async function activityCounts(tenantId: string) {
  const counts = await tenantRowCounts(database, tenantId);
  return Object.fromEntries(ACTIVITY_TABLES.map((table) => [table, counts[table]]));
}

/** Everything a delivery could write for the tenant: activity rows, email ledger, outbox. */
async function writes(tenantId: string) {
  return {
    ...(await activityCounts(tenantId)),
    ledger: (await ledgerRows(database, 'email')).filter((row) => row.tenant_id === tenantId)
      .length,
    outbox: (await outboxEvents(database, tenantId)).length,
  };
}

/**
 * The email messages with this provider id and the activity rows stored against them, in any
 * tenant: what a delivery about that id could have written.
 */
async function rowsOfProviderMessage(providerMessageId: string) {
  const messages = await rowsWith(database, 'email_messages', 'provider_message_id', [
    providerMessageId,
  ]);
  const activity = ACTIVITY_TABLES.map(
    (table) => sql`SELECT a.id FROM ${sql.table(table)} a
      JOIN email_messages m ON m.id = a.message_id
      WHERE m.provider_message_id = ${providerMessageId}`,
  );
  const { rows } = await withSystemScope(database.db, (trx) =>
    sql<{ id: string }>`${sql.join(activity, sql` UNION ALL `)}`.execute(trx),
  );
  return { messages, activity: rows };
}

const envelopes = async (tenantId: string) =>
  (await outboxEvents(database, tenantId)).map((event) => event.envelope);

describe('email.opened', () => {
  it('stores an open with its source metadata, one email.opened event and a processed ledger row', async () => {
    const message = await sentMessage();
    const open = {
      ipAddress: '203.0.113.7',
      timestamp: '2024-05-01T10:00:00.000Z',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15',
    };
    const delivery = send({
      type: 'email.opened',
      created_at: '2024-05-01T10:00:01.000Z',
      data: {
        created_at: '2024-05-01T09:00:00.000Z',
        email_id: message.providerMessageId,
        from: 'Sales <sales@crm.example>',
        to: ['lead@example.com'],
        subject: 'Our proposal',
        open,
      },
    });
    const res = await delivery;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });

    const rows = await tenantRows(database, 'email_opens', message.tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        tenant_id: message.tenantId,
        message_id: message.messageId,
        user_agent: open.userAgent,
        ip_address: open.ipAddress,
        occurred_at: new Date(open.timestamp),
        metadata: open,
      }),
    ]);
    expect(await envelopes(message.tenantId)).toEqual([
      expect.objectContaining({
        type: 'email.opened',
        tenant_id: message.tenantId,
        record: { module: 'email', id: message.messageId },
        data: {
          message_id: message.messageId,
          provider_message_id: message.providerMessageId,
          activity_id: rows[0].id,
          occurred_at: open.timestamp,
        },
      }),
    ]);
    expect(await ledgerOf(delivery.webhookId)).toEqual([
      expect.objectContaining({
        provider: 'email',
        tenant_id: message.tenantId,
        event_type: 'email.opened',
        content_type: 'application/json',
        raw_body: delivery.raw,
        verification: 'verified',
        outcome: 'processed',
        detail: `email.opened stored as ${rows[0].id}`,
      }),
    ]);
  });

  it('answers a redelivery (same webhook id, signed again later) as a duplicate and writes nothing', async () => {
    const message = await sentMessage();
    const body = { type: 'email.opened', data: { email_id: message.providerMessageId } };
    const first = send(body);
    expect((await first).body).toEqual({ received: true });
    const before = await writes(message.tenantId);

    const res = await send(body, { id: first.webhookId, at: new Date(Date.now() + 30_000) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: true });
    expect(await writes(message.tenantId)).toEqual(before);
    expect(await tenantRows(database, 'email_opens', message.tenantId)).toHaveLength(1);
  });

  it('reads flat user_agent, ip_address and the event time when there is no `open` object', async () => {
    const message = await sentMessage();
    const data = {
      email_id: message.providerMessageId,
      user_agent: 'Thunderbird/115',
      ip_address: '198.51.100.4',
    };
    const res = await send({ type: 'email.opened', created_at: '2024-05-02T08:00:00Z', data });
    expect(res.body).toEqual({ received: true });
    expect(await tenantRows(database, 'email_opens', message.tenantId)).toEqual([
      expect.objectContaining({
        user_agent: 'Thunderbird/115',
        ip_address: '198.51.100.4',
        occurred_at: new Date('2024-05-02T08:00:00Z'),
        metadata: data,
      }),
    ]);
  });
});

describe('email.clicked', () => {
  it('stores the clicked link as target_url and emits email.clicked with it', async () => {
    const message = await sentMessage();
    const click = {
      ipAddress: '203.0.113.9',
      link: 'https://crm.example/pricing?utm_source=email',
      timestamp: '2024-05-01T11:30:00.000Z',
      userAgent: 'Mozilla/5.0',
    };
    const res = await send({
      type: 'email.clicked',
      data: { email_id: message.providerMessageId, click },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    const rows = await tenantRows(database, 'email_clicks', message.tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        message_id: message.messageId,
        target_url: click.link,
        user_agent: 'Mozilla/5.0',
        ip_address: '203.0.113.9',
        occurred_at: new Date(click.timestamp),
        metadata: click,
      }),
    ]);
    expect(await envelopes(message.tenantId)).toEqual([
      expect.objectContaining({
        type: 'email.clicked',
        record: { module: 'email', id: message.messageId },
        data: expect.objectContaining({ activity_id: rows[0].id, target_url: click.link }),
      }),
    ]);
  });

  it('takes a flat data.link too', async () => {
    const message = await sentMessage();
    await send({
      type: 'email.clicked',
      data: { email_id: message.providerMessageId, link: 'https://crm.example/a' },
    }).expect(200);
    expect(await tenantRows(database, 'email_clicks', message.tenantId)).toEqual([
      expect.objectContaining({ target_url: 'https://crm.example/a', occurred_at: null }),
    ]);
  });
});

describe('email.replied', () => {
  it('stores the subject as the snippet and the sender address, and emits email.replied', async () => {
    const message = await sentMessage();
    const res = await send({
      type: 'email.replied',
      created_at: '2024-05-03T07:45:00.000Z',
      data: {
        email_id: message.providerMessageId,
        from: 'Lead Person <lead@example.com>',
        subject: 'Re: Our proposal',
      },
    });
    expect(res.body).toEqual({ received: true });
    const rows = await tenantRows(database, 'email_replies', message.tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        message_id: message.messageId,
        snippet: 'Re: Our proposal',
        from_email: 'lead@example.com',
        occurred_at: new Date('2024-05-03T07:45:00.000Z'),
      }),
    ]);
    expect(await envelopes(message.tenantId)).toEqual([
      expect.objectContaining({
        type: 'email.replied',
        record: { module: 'email', id: message.messageId },
        data: expect.objectContaining({
          activity_id: rows[0].id,
          from_email: 'lead@example.com',
          snippet: 'Re: Our proposal',
        }),
      }),
    ]);
  });

  it('stores text Postgres cannot hold (NUL, a lone surrogate) with U+FFFD instead of failing', async () => {
    const message = await sentMessage();
    const raw = `{"type":"email.replied","data":{"email_id":"${message.providerMessageId}","subject":"Re:\\u0000 hi\\ud800","from_email":"a@b.example","x\\u0000":1}}`;
    const res = await send(raw);
    expect(res.status).toBe(200);
    expect(await tenantRows(database, 'email_replies', message.tenantId)).toEqual([
      expect.objectContaining({
        snippet: 'Re:\uFFFD hi\uFFFD',
        metadata: expect.objectContaining({ 'x\uFFFD': 1 }),
      }),
    ]);
  });
});

describe('events acknowledged or ignored without storing', () => {
  it.each(['email.delivered', 'email.bounced', 'email.complained'])(
    '%s: 200 { received: true }, ledger ignored under the message tenant',
    async (type) => {
      const message = await sentMessage();
      const before = await activityCounts(message.tenantId);
      const delivery = send({ type, data: { email_id: message.providerMessageId } });
      const res = await delivery;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });
      expect(await activityCounts(message.tenantId)).toEqual(before);
      expect(await outboxEvents(database, message.tenantId)).toEqual([]);
      expect(await ledgerOf(delivery.webhookId)).toEqual([
        expect.objectContaining({
          tenant_id: message.tenantId,
          event_type: type,
          outcome: 'ignored',
          detail: `${type} acknowledged, not stored`,
        }),
      ]);
    },
  );

  it('an event about a message never sent: 200 { ignored: true }, ledger unmatched, nothing stored', async () => {
    const emailId = `em_unknown_${randomUUID()}`;
    const delivery = send({ type: 'email.opened', data: { email_id: emailId } });
    const res = await delivery;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ignored: true });
    expect(await rowsOfProviderMessage(emailId)).toEqual({ messages: [], activity: [] });
    expect(await ledgerOf(delivery.webhookId)).toEqual([
      expect.objectContaining({
        tenant_id: null,
        outcome: 'unmatched',
        event_type: 'email.opened',
      }),
    ]);
  });

  it('a type this receiver does not handle: 200 { received: true, ignored: true }, ledger ignored', async () => {
    const delivery = send({ type: 'contact.created', data: { id: 'c_1' } });
    const res = await delivery;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, ignored: true });
    expect(await ledgerOf(delivery.webhookId)).toEqual([
      expect.objectContaining({
        tenant_id: null,
        outcome: 'ignored',
        event_type: 'contact.created',
        detail: 'unsupported event type contact.created',
      }),
    ]);
  });
});

describe('refused deliveries write nothing', () => {
  const INVALID_SIGNATURE = { success: false, error: 'Invalid signature', code: 'UNAUTHORIZED' };
  const STALE = "The signature timestamp is more than 300 seconds from the server's clock";
  let message: Awaited<ReturnType<typeof sentMessage>>;
  let body: object;
  beforeAll(async () => {
    message = await sentMessage();
    body = { type: 'email.opened', data: { email_id: message.providerMessageId } };
  });

  it.each([
    [
      'no signature headers',
      { omit: ['email-webhook-id', 'email-webhook-timestamp', 'email-webhook-signature'] },
      'Missing signature header(s): email-webhook-id, email-webhook-timestamp, email-webhook-signature',
    ],
    [
      'no email-webhook-signature',
      { omit: ['email-webhook-signature'] },
      'Missing signature header(s): email-webhook-signature',
    ],
    [
      'a signature made with another secret',
      { secret: `whsec_${randomBytes(32).toString('base64')}` },
      'The signature does not match the request body',
    ],
    [
      'a body altered after signing',
      { signedBody: '{"type":"email.opened","data":{"email_id":"other"}}' },
      'The signature does not match the request body',
    ],
    ['a timestamp 6 minutes old', { at: new Date(Date.now() - 360_000) }, STALE],
    ['a timestamp 6 minutes ahead', { at: new Date(Date.now() + 360_000) }, STALE],
  ])('%s: 401', async (_case, options: SendOptions, expectedMessage) => {
    const before = await writes(message.tenantId);
    const delivery = send(body, options);
    const res = await delivery;
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ...INVALID_SIGNATURE, message: expectedMessage, details: null });
    expect(await writes(message.tenantId)).toEqual(before);
    expect(await ledgerOf(delivery.webhookId)).toEqual([]);
  });

  it.each([
    ['a body that is not JSON', () => '{"type":', 'The request body is not valid JSON'],
    [
      'a body without a type',
      () => ({ data: { email_id: message.providerMessageId } }),
      'The body must be { type, created_at, data }',
    ],
    [
      'an email event without data.email_id',
      () => ({ type: 'email.opened', data: {} }),
      '`data.email_id` is required',
    ],
    [
      'a click without its link',
      () => ({ type: 'email.clicked', data: { email_id: message.providerMessageId, click: {} } }),
      '`data.click.link` (or `data.link`) is required',
    ],
  ])('%s (verified): 400 Webhook processing failed', async (_case, makeBody, expectedMessage) => {
    const before = await writes(message.tenantId);
    const delivery = send(makeBody());
    const res = await delivery;
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: expectedMessage,
    });
    expect(await writes(message.tenantId)).toEqual(before);
    expect(await ledgerOf(delivery.webhookId)).toEqual([]);
  });

  it('GET is not a route of this receiver (POST only): 404', async () => {
    const res = await request(stack.url).get(PATH);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});

describe('with EMAIL_WEBHOOK_SECRET unset', () => {
  const bare = useReceiverStack({});

  it('refuses a delivery with 503 Webhook secret not configured and writes nothing', async () => {
    const message = await sentMessage();
    const before = await writes(message.tenantId);
    const delivery = send(
      { type: 'email.opened', data: { email_id: message.providerMessageId } },
      { base: bare.url },
    );
    const res = await delivery;
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      error: 'Webhook secret not configured',
      code: 'SERVICE_UNAVAILABLE',
      message: 'The email receiver has no signing secret configured',
      details: null,
    });
    expect(await writes(message.tenantId)).toEqual(before);
    expect(await ledgerOf(delivery.webhookId)).toEqual([]);
  });
});
