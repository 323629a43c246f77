import { createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { withSystemScope, type PaymentProvider } from '@crm/shared/db';
import { createTenant, insertRow, outboxEvents, testDb } from '@crm/test-kit';
import { sql, type RawBuilder } from 'kysely';
import Stripe from 'stripe';
import request from 'supertest';
import { Webhook } from 'svix';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { TEST_PUBLIC_BASE_URL, testSecretBox, useReceiverStack } from './support/receiver-stack';

/**
 * The ledger key of every receiver is something the signature covers, so a
 * genuine signed delivery re-sent with its UNSIGNED id header changed or removed (Razorpay's
 * x-razorpay-event-id, Twilio's I-Twilio-Idempotency-Token, the storefronts' webhook/delivery
 * id headers) is a redelivery: 2xx, no new ledger row, no new record, no new outbox event.
 * Receivers whose id is signed (email) or who have none (billing, network, messaging) are
 * checked too. Footprints are counted per tenant (and by the exact body in the ledger), since
 * other test files write the same tables at the same time.
 */
const TELEPHONY_TOKEN = 'replay-telephony-auth-token';
const BILLING_SECRET = 'whsec_replay_billing_secret';
const EMAIL_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const NETWORK_SECRET = 'replay-network-secret';
const MESSAGING_SECRET = 'replay-messaging-app-secret';
const stack = useReceiverStack({
  TELEPHONY_AUTH_TOKEN: TELEPHONY_TOKEN,
  BILLING_WEBHOOK_SECRET: BILLING_SECRET,
  EMAIL_WEBHOOK_SECRET: EMAIL_SECRET,
  NETWORK_WEBHOOK_SECRET: NETWORK_SECRET,
  MESSAGING_APP_SECRET: MESSAGING_SECRET,
});
const db = testDb();
afterAll(() => db.close());
const stripeSdk = new Stripe('sk_test_unused');

const uid = () => randomUUID().replace(/-/g, '').slice(0, 12);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const hmacHex = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');
const hmacBase64 = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data, 'utf8').digest('base64');

const RECEIVED = { received: true };
const DUPLICATE = { received: true, duplicate: true };

/**
 * What a delivery of `raw` could have written for `tenantId`: ledger rows of that tenant or
 * with exactly these bytes, the tenant's outbox events, and its rows in `tables`.
 */
async function footprint(tenantId: string, raw: string, tables: string[]) {
  const outbox = (await outboxEvents(db, tenantId)).length;
  return withSystemScope(db.db, async (trx) => {
    const count = async (query: RawBuilder<{ n: string }>) =>
      Number((await query.execute(trx)).rows[0].n);
    const result: Record<string, number> = {
      ledger: await count(sql<{ n: string }>`SELECT count(*)::text AS n FROM inbound_events e
        LEFT JOIN inbound_event_payloads p ON p.ledger_id = e.id AND p.received_at = e.received_at
        WHERE e.tenant_id = ${tenantId} OR coalesce(p.raw_body, e.raw_body) = ${raw}`),
      outbox,
    };
    for (const table of tables) {
      result[table] = await count(sql<{ n: string }>`SELECT count(*)::text AS n
        FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`);
    }
    return result;
  });
}

function post(path: string, raw: string, headers: Record<string, string>) {
  const req = request(stack.url).post(path);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(raw);
}

describe('payments', () => {
  interface PaymentCase {
    provider: PaymentProvider;
    secret: string;
    /** A genuine payment.succeeded body for a payment object id. */
    body(objectId: string): object;
    sign(raw: string, secret: string): Record<string, string>;
  }

  const CASES: PaymentCase[] = [
    {
      provider: 'stripe',
      secret: 'whsec_replay_payments_stripe',
      body: (objectId) => ({
        id: `evt_${uid()}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: nowSeconds(),
        data: {
          object: {
            id: objectId,
            object: 'payment_intent',
            amount: 2500,
            amount_received: 2500,
            currency: 'usd',
          },
        },
      }),
      sign: (payload, secret) => ({
        'Stripe-Signature': stripeSdk.webhooks.generateTestHeaderString({
          payload,
          secret,
          timestamp: nowSeconds(),
        }),
      }),
    },
    {
      provider: 'razorpay',
      secret: 'replay-razorpay-secret',
      body: (objectId) => ({
        entity: 'event',
        account_id: 'acc_replay',
        event: 'payment.captured',
        contains: ['payment'],
        payload: {
          payment: {
            entity: { id: objectId, entity: 'payment', amount: 50000, currency: 'INR' },
          },
        },
        created_at: nowSeconds(),
      }),
      sign: (payload, secret) => ({ 'X-Razorpay-Signature': hmacHex(secret, payload) }),
    },
    {
      provider: 'paddle',
      secret: 'pdl_ntfset_replay_secret',
      body: (objectId) => ({
        event_id: `evt_${uid()}`,
        event_type: 'transaction.completed',
        occurred_at: new Date().toISOString(),
        notification_id: `ntf_${uid()}`,
        data: {
          id: objectId,
          status: 'completed',
          currency_code: 'EUR',
          details: { totals: { total: '1190', grand_total: '1190' } },
        },
      }),
      sign: (payload, secret) => {
        const ts = nowSeconds();
        return { 'Paddle-Signature': `ts=${ts};h1=${hmacHex(secret, `${ts}:${payload}`)}` };
      },
    },
    {
      provider: 'lemonsqueezy',
      secret: 'replay-lemon-secret',
      body: (objectId) => ({
        meta: { event_name: 'order_created', custom_data: {} },
        data: { type: 'orders', id: objectId, attributes: { currency: 'USD', total: 999 } },
      }),
      sign: (payload, secret) => ({ 'X-Signature': hmacHex(secret, payload) }),
    },
  ];

  describe.each(CASES)('$provider', ({ provider, secret, body, sign }) => {
    let tenantId: string;
    let query: string;
    beforeAll(async () => {
      tenantId = (await createTenant(db)).id;
      const { id } = await insertRow(db, 'payment_connections', {
        tenant_id: tenantId,
        provider,
        webhook_secret_ciphertext: testSecretBox().seal(secret),
      });
      query = `?provider=${provider}&connection=${id}`;
    });
    const deliver = (raw: string, headers: Record<string, string>) =>
      post(`/api/payments/webhook${query}`, raw, {
        'content-type': 'application/json',
        ...headers,
      });

    it('a genuine delivery re-sent with the unsigned event id header changed or removed records nothing and emits nothing', async () => {
      const raw = JSON.stringify(body(`obj_${uid()}`));
      const first = await deliver(raw, { ...sign(raw, secret), 'X-Razorpay-Event-Id': 'evt_A' });
      expect(first.status).toBe(200);
      expect(first.body).toEqual(RECEIVED);
      const before = await footprint(tenantId, raw, ['payment_events']);
      expect(before).toMatchObject({ payment_events: 1, outbox: 1 });

      const idHeaders: Array<Record<string, string>> = [
        { 'X-Razorpay-Event-Id': `evt_${uid()}` },
        {},
      ];
      for (const idHeader of idHeaders) {
        // Re-signed now: a scheme that signs a timestamp gets a new one, as a replay would.
        const res = await deliver(raw, { ...sign(raw, secret), ...idHeader });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(DUPLICATE);
        expect(await footprint(tenantId, raw, ['payment_events'])).toEqual(before);
      }
    });
  });

  /**
   * The record writes are idempotent on the provider's own id of the payment or refund, not
   * only on the ledger key: another event about the same payment stores no second row.
   */
  describe('the same payment in another event stores no second row and emits nothing', () => {
    async function connection(provider: PaymentProvider, secret: string) {
      const tenantId = (await createTenant(db)).id;
      const { id } = await insertRow(db, 'payment_connections', {
        tenant_id: tenantId,
        provider,
        webhook_secret_ciphertext: testSecretBox().seal(secret),
      });
      return { tenantId, query: `?provider=${provider}&connection=${id}` };
    }

    async function expectStoredOnce(
      provider: PaymentProvider,
      secret: string,
      bodies: object[],
      sign: (raw: string) => Record<string, string>,
    ) {
      const { tenantId, query } = await connection(provider, secret);
      const raws = bodies.map((b) => JSON.stringify(b));
      for (const raw of raws) {
        const res = await post(`/api/payments/webhook${query}`, raw, {
          'content-type': 'application/json',
          ...sign(raw),
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(RECEIVED);
      }
      const after = await footprint(tenantId, raws[0], ['payment_events']);
      expect(after).toMatchObject({ payment_events: 1, outbox: 1 });
    }

    it('stripe: two event ids for one PaymentIntent', async () => {
      const secret = 'whsec_replay_same_pi';
      const [first] = [CASES[0].body(`pi_${uid()}`)] as [{ data: object }];
      const second = { ...first, id: `evt_${uid()}` };
      await expectStoredOnce('stripe', secret, [first, second], (raw) =>
        CASES[0].sign(raw, secret),
      );
    });

    it('razorpay: the same captured payment sent again at another time', async () => {
      const secret = 'replay-razorpay-same-payment';
      const first = CASES[1].body(`pay_${uid()}`) as { created_at: number };
      const second = { ...first, created_at: first.created_at + 60 };
      await expectStoredOnce('razorpay', secret, [first, second], (raw) =>
        CASES[1].sign(raw, secret),
      );
    });

    it('paddle: adjustment.created and adjustment.updated of one approved refund', async () => {
      const secret = 'pdl_ntfset_replay_same_refund';
      const adjustment = {
        id: `adj_${uid()}`,
        action: 'refund',
        status: 'approved',
        transaction_id: `txn_${uid()}`,
        currency_code: 'EUR',
        totals: { total: '595', currency_code: 'EUR' },
      };
      const event = (type: string) => ({
        event_id: `evt_${uid()}`,
        event_type: type,
        occurred_at: new Date().toISOString(),
        data: adjustment,
      });
      await expectStoredOnce(
        'paddle',
        secret,
        [event('adjustment.created'), event('adjustment.updated')],
        (raw) => CASES[2].sign(raw, secret),
      );
    });
  });
});

describe('telephony', () => {
  const PATH = '/api/communications/webhooks';
  const formBody = (params: Record<string, string>) => new URLSearchParams(params).toString();

  async function telephonyTenant() {
    const tenantId = (await createTenant(db)).id;
    const phoneNumber = `+1${randomInt(200, 999)}${String(randomInt(0, 1e7)).padStart(7, '0')}`;
    await insertRow(db, 'telephony_numbers', {
      tenant_id: tenantId,
      phone_number: phoneNumber,
      proven_at: new Date(),
    });
    return { tenantId, phoneNumber };
  }

  function send(params: Record<string, string>, headers: Record<string, string> = {}) {
    return post(PATH, formBody(params), {
      'content-type': 'application/x-www-form-urlencoded',
      'X-Telephony-Signature': getExpectedTwilioSignature(
        TELEPHONY_TOKEN,
        `${TEST_PUBLIC_BASE_URL}${PATH}`,
        params,
      ),
      ...headers,
    });
  }

  it('a completed call re-sent with another I-Twilio-Idempotency-Token (or none) emits no second call.completed', async () => {
    const { tenantId, phoneNumber } = await telephonyTenant();
    const params = {
      CallSid: `CA${uid()}${uid()}`,
      CallStatus: 'completed',
      CallDuration: '42',
      Direction: 'inbound',
      From: '+14155550142',
      To: phoneNumber,
    };
    const raw = formBody(params);
    expect((await send(params, { 'I-Twilio-Idempotency-Token': `idem-${uid()}` })).status).toBe(
      200,
    );
    const before = await footprint(tenantId, raw, ['call_logs']);
    expect(before).toMatchObject({ call_logs: 1, outbox: 1, ledger: 1 });

    const tokens: Array<Record<string, string>> = [
      { 'I-Twilio-Idempotency-Token': `idem-${uid()}` },
      {},
    ];
    for (const headers of tokens) {
      const res = await send(params, headers);
      expect(res.status).toBe(200);
      expect(await footprint(tenantId, raw, ['call_logs'])).toEqual(before);
    }
  });
});

describe('storefronts', () => {
  interface StorefrontCase {
    platform: 'storefront_a' | 'storefront_b';
    path: string;
    headers: { shop: string; topic: string; id: string; signature: string };
    shop(): string;
    orderTopics: [string, string];
    customerTopic: string;
    order(): Record<string, unknown>;
    customer(): Record<string, unknown>;
  }

  const CASES: StorefrontCase[] = [
    {
      platform: 'storefront_a',
      path: '/api/commerce/webhook/storefront-a',
      headers: {
        shop: 'x-storefront-a-shop-domain',
        topic: 'x-storefront-a-topic',
        id: 'x-storefront-a-webhook-id',
        signature: 'x-storefront-a-hmac-sha256',
      },
      shop: () => `replay-${uid()}.example.test`,
      orderTopics: ['orders/updated', 'orders/paid'],
      customerTopic: 'customers/update',
      order: () => {
        const id = randomInt(1, 2 ** 47);
        return {
          id,
          admin_graphql_api_id: `gid://storefront-a/Order/${id}`,
          name: `#${uid()}`,
          email: `buyer+${uid()}@example.test`,
          total_price: '403.50',
          currency: 'USD',
          financial_status: 'paid',
          updated_at: '2024-10-01T10:00:00-04:00',
        };
      },
      customer: () => ({
        id: randomInt(1, 2 ** 47),
        email: `customer+${uid()}@example.test`,
        first_name: 'Cat',
        updated_at: '2024-10-01T10:00:00-04:00',
      }),
    },
    {
      platform: 'storefront_b',
      path: '/api/commerce/webhook/storefront-b',
      headers: {
        shop: 'x-storefront-b-webhook-source',
        topic: 'x-storefront-b-webhook-topic',
        id: 'x-storefront-b-webhook-delivery-id',
        signature: 'x-storefront-b-webhook-signature',
      },
      shop: () => `https://replay-${uid()}.example.test`,
      orderTopics: ['order.updated', 'order.created'],
      customerTopic: 'customer.updated',
      order: () => ({
        id: randomInt(1, 2 ** 47),
        number: uid(),
        status: 'processing',
        currency: 'EUR',
        total: '29.35',
        date_modified_gmt: '2024-10-01T14:00:00',
        billing: { first_name: 'Bo', email: `bo+${uid()}@example.test` },
      }),
      customer: () => ({
        id: randomInt(1, 2 ** 47),
        email: `customer+${uid()}@example.test`,
        first_name: 'Cat',
        date_modified_gmt: '2024-10-01T14:00:00',
      }),
    },
  ];

  describe.each(CASES)('$platform', (storefront) => {
    const TABLES = ['commerce_orders', 'crm_contacts'];

    async function connect(secret: string | null) {
      const tenantId = (await createTenant(db)).id;
      const shop = storefront.shop();
      await insertRow(db, 'storefront_connections', {
        tenant_id: tenantId,
        platform: storefront.platform,
        shop_identifier: shop,
        webhook_secret_ciphertext: secret === null ? null : testSecretBox().seal(secret),
      });
      return { tenantId, shop, secret };
    }

    function deliver(
      shop: { shop: string; secret: string | null },
      raw: string,
      topic: string,
      id: string | null,
    ) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        [storefront.headers.shop]: shop.shop,
        [storefront.headers.topic]: topic,
      };
      if (id !== null) headers[storefront.headers.id] = id;
      if (shop.secret) headers[storefront.headers.signature] = hmacBase64(shop.secret, raw);
      return post(storefront.path, raw, headers);
    }

    it.each([
      ['a signed order', 'order', `secret-${uid()}`],
      ['a signed customer', 'customer', `secret-${uid()}`],
      ['an order to a connection without a secret (accepted unverified)', 'order', null],
    ] as const)(
      '%s re-sent with the id header changed or removed: duplicate, nothing new',
      async (_case, what, secret) => {
        const shop = await connect(secret);
        const raw = JSON.stringify(what === 'order' ? storefront.order() : storefront.customer());
        const [topic, otherTopic] =
          what === 'order' ? storefront.orderTopics : [storefront.customerTopic];
        const first = await deliver(shop, raw, topic, uid());
        expect(first.status).toBe(200);
        expect(first.body).toEqual(RECEIVED);
        const before = await footprint(shop.tenantId, raw, TABLES);
        expect(before.ledger).toBe(1);
        expect(before.outbox).toBeGreaterThan(0);

        const replays: Array<[string, string | null]> = [
          [topic, uid()],
          [topic, null],
        ];
        // Another topic of the same kind with the same record version is the same delivery.
        if (otherTopic) replays.push([otherTopic, uid()]);
        for (const [replayTopic, id] of replays) {
          const res = await deliver(shop, raw, replayTopic, id);
          expect(res.status).toBe(200);
          expect(res.body).toEqual(DUPLICATE);
          expect(await footprint(shop.tenantId, raw, TABLES)).toEqual(before);
        }
      },
    );

    it('an order without an updated time sent again as other bytes (same content): no order.updated', async () => {
      const shop = await connect(`secret-${uid()}`);
      const order = storefront.order();
      delete order.updated_at;
      delete order.date_modified_gmt;
      const raw = JSON.stringify(order);
      expect((await deliver(shop, raw, storefront.orderTopics[0], uid())).body).toEqual(RECEIVED);
      const before = await footprint(shop.tenantId, raw, TABLES);

      const reformatted = JSON.stringify(order, null, 2);
      const res = await deliver(shop, reformatted, storefront.orderTopics[0], uid());
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);
      // Its own ledger row (other bytes), but no record or event changed.
      expect(await footprint(shop.tenantId, raw, TABLES)).toEqual({
        ...before,
        ledger: before.ledger + 1,
      });
    });
  });
});

describe('receivers whose id is signed, or who send none', () => {
  it('billing: an event re-signed with a new timestamp is a duplicate', async () => {
    const tenantId = (await createTenant(db)).id;
    const raw = JSON.stringify({
      id: `evt_${uid()}`,
      object: 'event',
      type: 'customer.subscription.updated',
      data: {
        object: {
          id: `sub_${uid()}`,
          customer: `cus_${uid()}`,
          status: 'active',
          metadata: { tenant_id: tenantId },
        },
      },
    });
    const sign = (timestamp: number) => ({
      'content-type': 'application/json',
      'billing-signature': stripeSdk.webhooks.generateTestHeaderString({
        payload: raw,
        secret: BILLING_SECRET,
        timestamp,
      }),
    });
    expect((await post('/api/webhooks/billing', raw, sign(nowSeconds()))).body).toEqual(RECEIVED);
    const before = await footprint(tenantId, raw, ['billing_subscriptions']);
    const res = await post('/api/webhooks/billing', raw, sign(nowSeconds() - 5));
    expect(res.body).toEqual(DUPLICATE);
    expect(await footprint(tenantId, raw, ['billing_subscriptions'])).toEqual(before);
  });

  it('email: the webhook id is signed, so changing it is refused (401) and writes nothing', async () => {
    const tenantId = (await createTenant(db)).id;
    const providerMessageId = `em_${uid()}`;
    await insertRow(db, 'email_messages', {
      tenant_id: tenantId,
      provider_message_id: providerMessageId,
    });
    const raw = JSON.stringify({
      type: 'email.opened',
      created_at: '2024-05-01T10:00:01.000Z',
      data: { email_id: providerMessageId, open: { timestamp: '2024-05-01T10:00:00.000Z' } },
    });
    const id = `msg_${uid()}`;
    const at = new Date();
    const headers = {
      'content-type': 'application/json',
      'email-webhook-id': id,
      'email-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'email-webhook-signature': new Webhook(EMAIL_SECRET).sign(id, at, raw),
    };
    expect((await post('/api/webhooks/email', raw, headers)).body).toEqual(RECEIVED);
    const before = await footprint(tenantId, raw, ['email_opens']);
    const changed = await post('/api/webhooks/email', raw, {
      ...headers,
      'email-webhook-id': `msg_${uid()}`,
    });
    expect(changed.status).toBe(401);
    expect(await footprint(tenantId, raw, ['email_opens'])).toEqual(before);
    expect((await post('/api/webhooks/email', raw, headers)).body).toEqual(DUPLICATE);
    expect(await footprint(tenantId, raw, ['email_opens'])).toEqual(before);
  });

  it('network: the body re-signed with a new timestamp is a duplicate', async () => {
    const tenantId = (await createTenant(db)).id;
    const accountId = `acc-${uid()}`;
    await insertRow(db, 'network_accounts', {
      proven_at: new Date(), // a proven claim: its deliveries are routed
      tenant_id: tenantId,
      external_account_id: accountId,
    });
    const raw = JSON.stringify({
      id: `evt-${uid()}`,
      type: 'PROFILE_VIEWED',
      account_id: accountId,
    });
    const sign = (t: number) => ({
      'content-type': 'application/json',
      'x-network-signature': `t=${t},v1=${hmacHex(NETWORK_SECRET, `${t}.${raw}`)}`,
    });
    expect((await post('/api/webhooks/network', raw, sign(nowSeconds()))).body).toMatchObject({
      inserted: 1,
    });
    const before = await footprint(tenantId, raw, ['network_events']);
    const res = await post('/api/webhooks/network', raw, sign(nowSeconds() - 5));
    expect(res.body).toMatchObject({ duplicate: true, inserted: 0 });
    expect(await footprint(tenantId, raw, ['network_events'])).toEqual(before);
  });

  it('messaging: the same signed body again is a duplicate', async () => {
    const tenantId = (await createTenant(db)).id;
    const phoneNumberId = `pn-${uid()}`;
    await insertRow(db, 'messaging_accounts', {
      proven_at: new Date(), // a proven claim: its deliveries are routed
      tenant_id: tenantId,
      phone_number_id: phoneNumberId,
    });
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA-1',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: phoneNumberId },
                messages: [
                  {
                    from: '15551234567',
                    id: `wamid.${uid()}`,
                    timestamp: '1717000000',
                    type: 'text',
                    text: { body: 'hi' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const headers = {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${hmacHex(MESSAGING_SECRET, raw)}`,
    };
    const path = '/api/messaging/webhooks/cloud-api';
    expect((await post(path, raw, headers)).body).toEqual(RECEIVED);
    const before = await footprint(tenantId, raw, ['chat_messages']);
    expect((await post(path, raw, headers)).body).toEqual(DUPLICATE);
    expect(await footprint(tenantId, raw, ['chat_messages'])).toEqual(before);
  });
});
