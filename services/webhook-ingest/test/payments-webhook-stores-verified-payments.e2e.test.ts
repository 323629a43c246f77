import { createPurposeSecretBox, CONNECTION_SECRETS } from '@crm/shared/crypto';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { PaymentProvider } from '@crm/shared/db';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  tenantRows,
  testDb,
} from '@crm/test-kit';
import Stripe from 'stripe';
import request from 'supertest';
import { testSecretBox, useReceiverStack } from './support/receiver-stack';

/**
 * POST /api/payments/webhook?provider=<p>&connection=<id> through the gateway, for each of the
 * four providers, with deliveries signed exactly as that provider signs them (Stripe's SDK;
 * HMACs by hand for the others) under the connection's own secret. Stored payments are read
 * back (row, contact link, outbox event, ledger); every refused delivery is shown to write
 * nothing for its connection and tenant.
 */
const stack = useReceiverStack();
const db = testDb();
afterAll(() => db.close());
const box = testSecretBox();
const stripeSdk = new Stripe('sk_test_unused');

const uid = () => randomUUID().replace(/-/g, '').slice(0, 12);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const hmacHex = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');

type Kind = 'payment.succeeded' | 'payment.failed' | 'payment.refunded';

/** One provider event as the provider would send it, and what we expect stored from it. */
interface Fixture {
  body: object;
  eventId: string;
  eventType: string;
  /** Headers the provider sends besides the signature (Razorpay's unsigned event id). */
  headers?: Record<string, string>;
  stored?: { kind: Kind; amount: string; currency: string };
}

interface ProviderCase {
  provider: PaymentProvider;
  secret: string;
  signatureHeader: string;
  /** Signs the exact raw body the way the provider does. */
  sign(raw: string, secret: string, timestamp: number): Record<string, string>;
  /** Whether the scheme signs a timestamp (then a stale one is refused). */
  timed: boolean;
  event(kind: Kind | 'other', email: string): Fixture;
}

const CASES: ProviderCase[] = [
  {
    provider: 'stripe',
    secret: 'whsec_payments_stripe_c2VjcmV0',
    signatureHeader: 'Stripe-Signature',
    timed: true,
    sign: (payload, secret, timestamp) => ({
      'Stripe-Signature': stripeSdk.webhooks.generateTestHeaderString({
        payload,
        secret,
        timestamp,
      }),
    }),
    event(kind, email) {
      const eventId = `evt_${uid()}`;
      const [type, object, stored] = {
        'payment.succeeded': [
          'payment_intent.succeeded',
          {
            object: 'payment_intent',
            amount: 2500,
            amount_received: 2500,
            currency: 'usd',
            receipt_email: email,
          },
          { kind: 'payment.succeeded', amount: '25.00', currency: 'USD' },
        ],
        'payment.failed': [
          'payment_intent.payment_failed',
          { object: 'payment_intent', amount: 1999, currency: 'usd', receipt_email: email },
          { kind: 'payment.failed', amount: '19.99', currency: 'USD' },
        ],
        'payment.refunded': [
          'charge.refunded',
          {
            object: 'charge',
            amount: 2500,
            amount_refunded: 500,
            currency: 'usd',
            billing_details: { email },
          },
          { kind: 'payment.refunded', amount: '5.00', currency: 'USD' },
        ],
        other: ['customer.created', { object: 'customer', email }, undefined],
      }[kind] as [string, object, Fixture['stored']];
      return {
        eventId,
        eventType: type,
        stored,
        body: {
          id: eventId,
          object: 'event',
          api_version: '2024-06-20',
          created: nowSeconds(),
          livemode: false,
          type,
          data: { object: { id: `obj_${uid()}`, ...object } },
        },
      };
    },
  },
  {
    provider: 'razorpay',
    secret: 'razorpay-connection-secret',
    signatureHeader: 'X-Razorpay-Signature',
    timed: false,
    sign: (payload, secret) => ({ 'X-Razorpay-Signature': hmacHex(secret, payload) }),
    event(kind, email) {
      const payment = {
        id: `pay_${uid()}`,
        entity: 'payment',
        amount: 50000,
        currency: 'INR',
        email,
      };
      const [event, payload, stored] = {
        'payment.succeeded': [
          'payment.captured',
          { payment: { entity: { ...payment, status: 'captured' } } },
          { kind: 'payment.succeeded', amount: '500.00', currency: 'INR' },
        ],
        'payment.failed': [
          'payment.failed',
          { payment: { entity: { ...payment, status: 'failed' } } },
          { kind: 'payment.failed', amount: '500.00', currency: 'INR' },
        ],
        'payment.refunded': [
          'refund.processed',
          {
            refund: {
              entity: {
                id: `rfnd_${uid()}`,
                amount: 12550,
                currency: 'INR',
                payment_id: payment.id,
              },
            },
            payment: { entity: { ...payment, status: 'refunded' } },
          },
          { kind: 'payment.refunded', amount: '125.50', currency: 'INR' },
        ],
        other: ['order.paid', { order: { entity: { id: `order_${uid()}` } } }, undefined],
      }[kind] as [string, Record<string, { entity: { id: string } }>, Fixture['stored']];
      const createdAt = nowSeconds();
      // The event id header is not signed: the key is the signed event, entity id and time.
      const subject = kind === 'payment.refunded' ? payload.refund : Object.values(payload)[0];
      return {
        eventId: `${event}:${subject.entity.id}:${createdAt}`,
        eventType: event,
        stored,
        headers: { 'X-Razorpay-Event-Id': `evt_${uid()}` },
        body: {
          entity: 'event',
          account_id: 'acc_test',
          event,
          contains: Object.keys(payload),
          payload,
          created_at: createdAt,
        },
      };
    },
  },
  {
    provider: 'paddle',
    secret: 'pdl_ntfset_01hv_paddle_connection_secret',
    signatureHeader: 'Paddle-Signature',
    timed: true,
    sign: (payload, secret, timestamp) => ({
      'Paddle-Signature': `ts=${timestamp};h1=${hmacHex(secret, `${timestamp}:${payload}`)}`,
    }),
    event(kind, email) {
      const eventId = `evt_${uid()}`;
      const transaction = {
        id: `txn_${uid()}`,
        customer_id: `ctm_${uid()}`,
        customer: { email },
        currency_code: 'EUR',
        details: { totals: { subtotal: '1000', tax: '190', total: '1190', grand_total: '1190' } },
      };
      const [type, data, stored] = {
        'payment.succeeded': [
          'transaction.completed',
          { ...transaction, status: 'completed' },
          { kind: 'payment.succeeded', amount: '11.90', currency: 'EUR' },
        ],
        'payment.failed': [
          'transaction.payment_failed',
          { ...transaction, status: 'past_due' },
          { kind: 'payment.failed', amount: '11.90', currency: 'EUR' },
        ],
        'payment.refunded': [
          'adjustment.updated',
          {
            id: `adj_${uid()}`,
            action: 'refund',
            status: 'approved',
            transaction_id: transaction.id,
            customer: { email },
            currency_code: 'EUR',
            totals: { subtotal: '500', tax: '95', total: '595', currency_code: 'EUR' },
          },
          { kind: 'payment.refunded', amount: '5.95', currency: 'EUR' },
        ],
        other: ['subscription.created', { id: `sub_${uid()}` }, undefined],
      }[kind] as [string, object, Fixture['stored']];
      return {
        eventId,
        eventType: type,
        stored,
        body: {
          event_id: eventId,
          event_type: type,
          occurred_at: new Date().toISOString(),
          notification_id: `ntf_${uid()}`,
          data,
        },
      };
    },
  },
  {
    provider: 'lemonsqueezy',
    secret: 'lemon-connection-signing-secret',
    signatureHeader: 'X-Signature',
    timed: false,
    sign: (payload, secret) => ({ 'X-Signature': hmacHex(secret, payload) }),
    event(kind, email) {
      const id = String(Math.floor(Math.random() * 1e9));
      const [eventName, type, attributes, stored] = {
        'payment.succeeded': [
          'order_created',
          'orders',
          { currency: 'USD', total: 999, status: 'paid' },
          { kind: 'payment.succeeded', amount: '9.99', currency: 'USD' },
        ],
        'payment.failed': [
          'subscription_payment_failed',
          'subscription-invoices',
          { currency: 'USD', total: 1500, status: 'pending' },
          { kind: 'payment.failed', amount: '15.00', currency: 'USD' },
        ],
        'payment.refunded': [
          'order_refunded',
          'orders',
          { currency: 'USD', total: 999, refunded: true, refunded_amount: 999 },
          { kind: 'payment.refunded', amount: '9.99', currency: 'USD' },
        ],
        other: ['license_key_created', 'license-keys', {}, undefined],
      }[kind] as [string, string, Record<string, unknown>, Fixture['stored']];
      const refunded = kind === 'payment.refunded' ? `:${attributes.refunded_amount}` : '';
      return {
        eventId: `${eventName}:${type}:${id}${refunded}`,
        eventType: eventName,
        stored,
        body: {
          meta: { event_name: eventName, custom_data: {} },
          data: { type, id, attributes: { ...attributes, user_email: email } },
        },
      };
    },
  },
];

const PATH = '/api/payments/webhook';
const BAD_SIGNATURE = {
  success: false,
  error: 'Invalid signature',
  code: 'UNAUTHORIZED',
  message: 'The signature does not match the request body',
  details: null,
};
const NOT_FOUND = {
  success: false,
  error: 'Not found',
  code: 'NOT_FOUND',
  message: 'Payment connection not found',
  details: null,
};
const INVALID_PROVIDER = {
  success: false,
  error: 'Invalid request',
  code: 'INVALID_REQUEST',
  message: 'The provider query parameter must be one of: stripe, razorpay, paddle, lemonsqueezy',
  details: { parameter: 'provider' },
};

interface Connection {
  tenantId: string;
  connectionId: string;
}

async function connectionFor(provider: PaymentProvider, secret: string): Promise<Connection> {
  const tenantId = (await createTenant(db)).id;
  const { id } = await insertRow(db, 'payment_connections', {
    tenant_id: tenantId,
    provider,
    webhook_secret_ciphertext: box.seal(secret),
  });
  return { tenantId, connectionId: id };
}

function deliver(query: string, raw: string, headers: Record<string, string> = {}): request.Test {
  const req = request(stack.url).post(`${PATH}${query}`).set('content-type', 'application/json');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(raw);
}

/** Everything a delivery to `connection` could write, to show a refusal wrote nothing. */
async function writesFor(provider: PaymentProvider, { tenantId, connectionId }: Connection) {
  return {
    ledger: (await ledgerRows(db, `payments_${provider}`)).filter((row) =>
      row.delivery_id.startsWith(`${connectionId}:`),
    ).length,
    payments: (await tenantRows(db, 'payment_events', tenantId)).length,
    outbox: (await outboxEvents(db, tenantId)).length,
  };
}

describe.each(CASES)('$provider', (providerCase) => {
  const { provider, secret, signatureHeader } = providerCase;
  let connection: Connection;
  let contactId: string;
  let email: string;
  let query: string;
  beforeAll(async () => {
    connection = await connectionFor(provider, secret);
    email = `payer-${uid()}@example.com`;
    contactId = (await insertRow(db, 'crm_contacts', { tenant_id: connection.tenantId, email })).id;
    query = `?provider=${provider}&connection=${connection.connectionId}`;
  });

  /** A fixture's raw body and its headers, signed now with `secret` unless told otherwise. */
  function signed(fixture: Fixture, options: { secret?: string; timestamp?: number } = {}) {
    const raw = JSON.stringify(fixture.body);
    const signature = providerCase.sign(
      raw,
      options.secret ?? secret,
      options.timestamp ?? nowSeconds(),
    );
    return { raw, headers: { ...fixture.headers, ...signature } };
  }

  async function expectRefused(send: () => request.Test, status: number, body: object) {
    const before = await writesFor(provider, connection);
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
    expect(await writesFor(provider, connection)).toEqual(before);
  }

  describe('a verified payment', () => {
    let fixture: Fixture;
    let delivery: ReturnType<typeof signed>;
    beforeAll(() => {
      // Upper case in the payload: the contact is found by the lower-cased address.
      fixture = providerCase.event('payment.succeeded', email.toUpperCase());
      delivery = signed(fixture);
    });

    it('is stored, linked to the contact with that email, with one event and a processed ledger row', async () => {
      const res = await deliver(query, delivery.raw, delivery.headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });

      const rows = await tenantRows(db, 'payment_events', connection.tenantId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        tenant_id: connection.tenantId,
        connection_id: connection.connectionId,
        provider,
        external_event_id: fixture.eventId,
        ...fixture.stored,
        email,
        contact_id: contactId,
        payload: fixture.body,
      });
      const events = await outboxEvents(db, connection.tenantId);
      expect(events.map((e) => e.type)).toEqual(['payment.succeeded']);
      expect(events[0].envelope).toMatchObject({
        type: 'payment.succeeded',
        tenant_id: connection.tenantId,
        record: { module: 'payments', id: rows[0].id },
        data: {
          provider,
          connection_id: connection.connectionId,
          external_event_id: fixture.eventId,
          amount: fixture.stored?.amount,
          currency: fixture.stored?.currency,
          email,
          contact_id: contactId,
        },
      });
      const ledger = (await ledgerRows(db, `payments_${provider}`)).filter(
        (row) => row.delivery_id === `${connection.connectionId}:${fixture.eventId}`,
      );
      expect(ledger).toEqual([
        expect.objectContaining({
          tenant_id: connection.tenantId,
          event_type: fixture.eventType,
          raw_body: delivery.raw,
          verification: 'verified',
          outcome: 'processed',
        }),
      ]);
    });

    it('redelivered: 200 duplicate, nothing new written', async () => {
      const again = signed(fixture);
      const before = await writesFor(provider, connection);
      const res = await deliver(query, again.raw, again.headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, duplicate: true });
      expect(await writesFor(provider, connection)).toEqual(before);
    });
  });

  it.each(['payment.failed', 'payment.refunded'] as const)(
    '%s is stored as that kind',
    async (kind) => {
      const fixture = providerCase.event(kind, email);
      const { raw, headers } = signed(fixture);
      const res = await deliver(query, raw, headers);
      expect(res.status).toBe(200);
      const row = (await tenantRows(db, 'payment_events', connection.tenantId)).find(
        (r) => r.external_event_id === fixture.eventId,
      );
      expect(row).toMatchObject({ ...fixture.stored, kind, contact_id: contactId });
      const events = await outboxEvents(db, connection.tenantId);
      expect(events.at(-1)).toMatchObject({ type: kind, envelope: { record: { id: row?.id } } });
    },
  );

  it('a payer with no contact: stored with contact_id null', async () => {
    const stranger = `stranger-${uid()}@example.com`;
    const fixture = providerCase.event('payment.succeeded', stranger);
    const { raw, headers } = signed(fixture);
    expect((await deliver(query, raw, headers)).status).toBe(200);
    const row = (await tenantRows(db, 'payment_events', connection.tenantId)).find(
      (r) => r.external_event_id === fixture.eventId,
    );
    expect(row).toMatchObject({ email: stranger, contact_id: null });
  });

  it('another event type: 200, ledger outcome ignored, no payment or event stored', async () => {
    const fixture = providerCase.event('other', email);
    const { raw, headers } = signed(fixture);
    const before = await writesFor(provider, connection);
    const res = await deliver(query, raw, headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await writesFor(provider, connection)).toEqual({ ...before, ledger: before.ledger + 1 });
    const ledger = (await ledgerRows(db, `payments_${provider}`)).find(
      (row) => row.delivery_id === `${connection.connectionId}:${fixture.eventId}`,
    );
    expect(ledger).toMatchObject({
      tenant_id: connection.tenantId,
      outcome: 'ignored',
      detail: `Event type ${fixture.eventType} is not stored`,
    });
  });

  describe('verified bodies Postgres could not store as sent', () => {
    it('"\\u0000" and a lone surrogate in strings and keys: 200, the payment stored with U+FFFD', async () => {
      const fixture = providerCase.event('payment.succeeded', email);
      fixture.body = { ...fixture.body, note: 'a\u0000b \ud800', 'k\u0000': ['\udc00'] };
      const { raw, headers } = signed(fixture);
      expect(raw).toContain('\\u0000');
      expect(raw).toContain('\\ud800');

      const res = await deliver(query, raw, headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true });
      const row = (await tenantRows(db, 'payment_events', connection.tenantId)).find(
        (r) => r.external_event_id === fixture.eventId,
      );
      expect(row).toMatchObject({ ...fixture.stored, contact_id: contactId });
      const { note: _note, 'k\u0000': _key, ...rest } = fixture.body as Record<string, unknown>;
      expect(row?.payload).toEqual({ ...rest, note: 'a\uFFFDb \uFFFD', 'k\uFFFD': ['\uFFFD'] });
    });

    it('a signed body nested 10,000 levels deep: 400, nothing written', async () => {
      const fixture = providerCase.event('payment.succeeded', email);
      fixture.body = { ...fixture.body, deep: 'DEEP' };
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      const raw = JSON.stringify(fixture.body).replace('"DEEP"', deep);
      const headers = { ...fixture.headers, ...providerCase.sign(raw, secret, nowSeconds()) };
      await expectRefused(() => deliver(query, raw, headers), 400, {
        success: false,
        error: 'Webhook processing failed',
        code: 'INVALID_REQUEST',
        message: 'The request body nests deeper than 64 levels',
        details: null,
      });
    });
  });

  describe('refused, writing nothing', () => {
    const fixture = () => providerCase.event('payment.succeeded', email);

    it('a tampered body: 401', async () => {
      const { raw, headers } = signed(fixture());
      const tampered = raw.replace(email, `attacker-${uid()}@example.com`);
      expect(tampered).not.toBe(raw);
      await expectRefused(() => deliver(query, tampered, headers), 401, BAD_SIGNATURE);
    });

    it('signed with another secret: 401', async () => {
      const { raw, headers } = signed(fixture(), { secret: `${secret}-other` });
      await expectRefused(() => deliver(query, raw, headers), 401, BAD_SIGNATURE);
    });

    it(`no ${signatureHeader} header: 401`, async () => {
      const { raw, headers } = signed(fixture());
      const unsigned = Object.fromEntries(
        Object.entries(headers).filter(([name]) => name !== signatureHeader),
      );
      await expectRefused(() => deliver(query, raw, unsigned), 401, {
        ...BAD_SIGNATURE,
        message: `The ${signatureHeader} header is required`,
      });
    });

    if (providerCase.timed) {
      it('a genuine signature an hour old or an hour ahead: 401', async () => {
        for (const timestamp of [nowSeconds() - 3600, nowSeconds() + 3600]) {
          const { raw, headers } = signed(fixture(), { timestamp });
          await expectRefused(() => deliver(query, raw, headers), 401, {
            ...BAD_SIGNATURE,
            message: "The signature timestamp is more than 300 seconds from the server's clock",
          });
        }
      });
    }

    it('a verified body that is not JSON: 400', async () => {
      const raw = 'not json {';
      const headers = providerCase.sign(raw, secret, nowSeconds());
      await expectRefused(() => deliver(query, raw, headers), 400, {
        success: false,
        error: 'Webhook processing failed',
        code: 'INVALID_REQUEST',
        message: 'The request body is not valid JSON',
        details: null,
      });
    });
  });
});

describe('the provider and connection in the URL', () => {
  let stripeConnection: Connection;
  let razorpayConnection: Connection;
  const secret = 'whsec_url_checks';
  const body = JSON.stringify({
    id: 'evt_url',
    type: 'payment_intent.succeeded',
    data: { object: {} },
  });
  const stripeHeaders = () => ({
    'Stripe-Signature': stripeSdk.webhooks.generateTestHeaderString({ payload: body, secret }),
  });
  beforeAll(async () => {
    stripeConnection = await connectionFor('stripe', secret);
    razorpayConnection = await connectionFor('razorpay', secret);
  });

  async function expectNothingWritten(send: () => request.Test, status: number, expected: object) {
    const before = await writesFor('stripe', stripeConnection);
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toEqual(expected);
    expect(await writesFor('stripe', stripeConnection)).toEqual(before);
  }

  it.each([
    ['missing', ''],
    ['unknown', '?provider=paypal'],
    ['upper-cased', '?provider=STRIPE'],
    ['given twice', '?provider=stripe&provider=stripe'],
  ])(
    'provider %s: 400 INVALID_REQUEST, before the connection is looked at',
    async (_case, query) => {
      const connection = query
        ? `&connection=${stripeConnection.connectionId}`
        : `?connection=${stripeConnection.connectionId}`;
      await expectNothingWritten(
        () => deliver(`${query}${connection}`, body, stripeHeaders()),
        400,
        INVALID_PROVIDER,
      );
      await expectNothingWritten(
        () => deliver(query, body, stripeHeaders()),
        400,
        INVALID_PROVIDER,
      );
    },
  );

  it.each([
    ['missing', () => ''],
    ['not a uuid', () => '&connection=not-a-uuid'],
    ['unknown', () => `&connection=${randomUUID()}`],
    ["another provider's", () => `&connection=${razorpayConnection.connectionId}`],
  ])('connection %s: the same 404', async (_case, connection) => {
    await expectNothingWritten(
      () => deliver(`?provider=stripe${connection()}`, body, stripeHeaders()),
      404,
      NOT_FOUND,
    );
  });

  it('a connection secret that does not open (sealed under another key): 503, nothing written', async () => {
    const tenantId = (await createTenant(db)).id;
    const otherBox = createPurposeSecretBox(
      'some-other-connection-secrets-key-0123456789',
      CONNECTION_SECRETS,
    );
    const { id } = await insertRow(db, 'payment_connections', {
      tenant_id: tenantId,
      provider: 'stripe',
      webhook_secret_ciphertext: otherBox.seal(secret),
    });
    const connection = { tenantId, connectionId: id };
    const before = await writesFor('stripe', connection);
    const res = await deliver(`?provider=stripe&connection=${id}`, body, stripeHeaders());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      error: 'Webhook secret unavailable',
      code: 'SERVICE_UNAVAILABLE',
      message: 'The webhook secret stored for this connection cannot be read',
      details: null,
    });
    expect(await writesFor('stripe', connection)).toEqual(before);
  });
});

describe('razorpay without an event id header', () => {
  it('is keyed by a digest of the body: stored once, a byte-identical redelivery is a duplicate', async () => {
    const secret = 'razorpay-digest-secret';
    const connection = await connectionFor('razorpay', secret);
    const raw = JSON.stringify({
      entity: 'event',
      event: 'payment.captured',
      payload: { payment: { entity: { id: `pay_${uid()}`, amount: 100, currency: 'INR' } } },
    });
    const digest = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
    const query = `?provider=razorpay&connection=${connection.connectionId}`;
    const headers = { 'X-Razorpay-Signature': hmacHex(secret, raw) };
    const first = await deliver(query, raw, headers);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true });
    const rows = await tenantRows(db, 'payment_events', connection.tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        external_event_id: digest,
        amount: '1.00',
        email: null,
        contact_id: null,
      }),
    ]);
    const again = await deliver(query, raw, headers);
    expect(again.body).toEqual({ received: true, duplicate: true });
    expect(await tenantRows(db, 'payment_events', connection.tenantId)).toHaveLength(1);
  });
});
