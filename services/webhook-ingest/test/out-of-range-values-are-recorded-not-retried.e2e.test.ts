import { createHmac, randomInt, randomUUID } from 'node:crypto';
import { withSystemScope, type PaymentProvider } from '@crm/shared/db';
import { createTenant, insertRow, ledgerRows, outboxEvents, testDb } from '@crm/test-kit';
import { sql, type RawBuilder } from 'kysely';
import Stripe from 'stripe';
import request from 'supertest';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { TEST_PUBLIC_BASE_URL, testSecretBox, useReceiverStack } from './support/receiver-stack';

/**
 * A genuine signed delivery carrying a value its column cannot hold (an
 * amount beyond numeric(16,2), a call duration beyond integer) is not a 500 that the provider
 * retries forever. It is answered 200 `{ received: true, stored: false, reason }` (TwiML for
 * telephony), kept in the ledger as `failed` with the reason and the tenant, and nothing of it
 * is written: no record, no contact, no outbox event. Sent again, it is answered the same way
 * and still writes nothing.
 */
const TELEPHONY_TOKEN = 'overflow-telephony-auth-token';
const stack = useReceiverStack({ TELEPHONY_AUTH_TOKEN: TELEPHONY_TOKEN });
const db = testDb();
afterAll(() => db.close());
const stripeSdk = new Stripe('sk_test_unused');

const uid = () => randomUUID().replace(/-/g, '').slice(0, 12);
const nowSeconds = () => Math.floor(Date.now() / 1000);
const hmacHex = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');

/** The tenant's rows in `tables` and its outbox events. */
async function footprint(tenantId: string, tables: string[]) {
  const outbox = (await outboxEvents(db, tenantId)).length;
  return withSystemScope(db.db, async (trx) => {
    const count = async (query: RawBuilder<{ n: string }>) =>
      Number((await query.execute(trx)).rows[0].n);
    const result: Record<string, number> = { outbox };
    for (const table of tables) {
      result[table] = await count(sql<{ n: string }>`SELECT count(*)::text AS n
        FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`);
    }
    return result;
  });
}

async function ledgerOf(provider: string, raw: string) {
  return (await ledgerRows(db, provider)).filter((row) => row.raw_body === raw);
}

function post(path: string, raw: string, headers: Record<string, string>) {
  const req = request(stack.url).post(path);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(raw);
}

describe('payments: an amount outside payment_events.amount numeric(16,2)', () => {
  interface OverflowCase {
    name: string;
    provider: PaymentProvider;
    body(email: string): object;
    sign(raw: string, secret: string): Record<string, string>;
    reason: RegExp;
  }

  const CASES: OverflowCase[] = [
    {
      name: 'paddle: a refund of "99999999999999999" KWD (99999999999999.999, rounds past 14 digits)',
      provider: 'paddle',
      body: (email) => ({
        event_id: `evt_${uid()}`,
        event_type: 'adjustment.updated',
        occurred_at: new Date().toISOString(),
        data: {
          id: `adj_${uid()}`,
          action: 'refund',
          status: 'approved',
          transaction_id: `txn_${uid()}`,
          customer: { email },
          currency_code: 'KWD',
          totals: { total: '99999999999999999', currency_code: 'KWD' },
        },
      }),
      sign: (raw, secret) => {
        const ts = nowSeconds();
        return { 'Paddle-Signature': `ts=${ts};h1=${hmacHex(secret, `${ts}:${raw}`)}` };
      },
      reason: /^The amount 99999999999999\.999 KWD does not fit payment_events\.amount/,
    },
    {
      name: 'stripe: 100000000000000 JPY (zero-decimal, 15 digits)',
      provider: 'stripe',
      body: (email) => ({
        id: `evt_${uid()}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        data: {
          object: {
            id: `pi_${uid()}`,
            amount_received: 100000000000000,
            currency: 'jpy',
            receipt_email: email,
          },
        },
      }),
      sign: (payload, secret) => ({
        'Stripe-Signature': stripeSdk.webhooks.generateTestHeaderString({ payload, secret }),
      }),
      reason: /^The amount 100000000000000 JPY does not fit/,
    },
    {
      name: 'razorpay: a refund of 100000000000000 JPY',
      provider: 'razorpay',
      body: (email) => ({
        entity: 'event',
        event: 'refund.processed',
        contains: ['refund', 'payment'],
        payload: {
          refund: { entity: { id: `rfnd_${uid()}`, amount: 100000000000000, currency: 'JPY' } },
          payment: { entity: { id: `pay_${uid()}`, email } },
        },
        created_at: nowSeconds(),
      }),
      sign: (raw, secret) => ({ 'X-Razorpay-Signature': hmacHex(secret, raw) }),
      reason: /^The amount 100000000000000 JPY does not fit/,
    },
    {
      name: 'lemonsqueezy: an order of 10^20 cents given as a JSON number',
      provider: 'lemonsqueezy',
      body: (email) => ({
        meta: { event_name: 'order_created' },
        data: {
          type: 'orders',
          id: String(randomInt(1, 1e9)),
          attributes: { currency: 'USD', total: 1e20, user_email: email },
        },
      }),
      sign: (raw, secret) => ({ 'X-Signature': hmacHex(secret, raw) }),
      reason: /^The amount 1000000000000000000\.00 USD does not fit/,
    },
  ];

  it.each(CASES)(
    '$name: 200 not stored, ledger failed with the reason, nothing written',
    async (c) => {
      const tenantId = (await createTenant(db)).id;
      const secret = `secret-${uid()}`;
      const { id: connectionId } = await insertRow(db, 'payment_connections', {
        tenant_id: tenantId,
        provider: c.provider,
        webhook_secret_ciphertext: testSecretBox().seal(secret),
      });
      const email = `payer-${uid()}@example.com`;
      await insertRow(db, 'crm_contacts', { tenant_id: tenantId, email });
      const raw = JSON.stringify(c.body(email));
      const path = `/api/payments/webhook?provider=${c.provider}&connection=${connectionId}`;
      const before = await footprint(tenantId, ['payment_events']);

      for (let attempt = 1; attempt <= 2; attempt++) {
        const res = await post(path, raw, {
          'content-type': 'application/json',
          ...c.sign(raw, secret),
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ received: true, stored: false, reason: expect.any(String) });
        expect(res.body.reason).toMatch(c.reason);
        expect(await footprint(tenantId, ['payment_events'])).toEqual(before);
        expect(await ledgerOf(`payments_${c.provider}`, raw)).toEqual([
          expect.objectContaining({
            tenant_id: tenantId,
            verification: 'verified',
            outcome: 'failed',
            detail: expect.stringMatching(c.reason),
          }),
        ]);
      }
    },
  );

  it('the largest amount that fits (99999999999999.99 USD) is stored', async () => {
    const tenantId = (await createTenant(db)).id;
    const secret = `secret-${uid()}`;
    const { id: connectionId } = await insertRow(db, 'payment_connections', {
      tenant_id: tenantId,
      provider: 'paddle',
      webhook_secret_ciphertext: testSecretBox().seal(secret),
    });
    const raw = JSON.stringify({
      event_id: `evt_${uid()}`,
      event_type: 'transaction.completed',
      data: {
        id: `txn_${uid()}`,
        currency_code: 'USD',
        details: { totals: { total: '9999999999999999' } },
      },
    });
    const res = await post(
      `/api/payments/webhook?provider=paddle&connection=${connectionId}`,
      raw,
      { 'content-type': 'application/json', ...CASES[0].sign(raw, secret) },
    );
    expect(res.body).toEqual({ received: true });
    const rows = await withSystemScope(db.db, (trx) =>
      trx.selectFrom('payment_events').select('amount').where('tenant_id', '=', tenantId).execute(),
    );
    expect(rows).toEqual([{ amount: '99999999999999.99' }]);
  });
});

describe('storefronts: an order total outside commerce_orders.total numeric(16,2)', () => {
  const CASES = [
    {
      platform: 'storefront_a',
      path: '/api/commerce/webhook/storefront-a',
      shopHeader: 'x-storefront-a-shop-domain',
      topicHeader: 'x-storefront-a-topic',
      signatureHeader: 'x-storefront-a-hmac-sha256',
      shop: () => `overflow-${uid()}.example.test`,
      topic: 'orders/create',
      order: (email: string, total: string) => ({
        id: randomInt(1, 2 ** 47),
        email,
        total_price: total,
        currency: 'USD',
        customer: { email, first_name: 'Ann' },
      }),
    },
    {
      platform: 'storefront_b',
      path: '/api/commerce/webhook/storefront-b',
      shopHeader: 'x-storefront-b-webhook-source',
      topicHeader: 'x-storefront-b-webhook-topic',
      signatureHeader: 'x-storefront-b-webhook-signature',
      shop: () => `https://overflow-${uid()}.example.test`,
      topic: 'order.created',
      order: (email: string, total: string) => ({
        id: randomInt(1, 2 ** 47),
        total,
        currency: 'EUR',
        billing: { email, first_name: 'Bo' },
      }),
    },
  ];

  describe.each(CASES)('$platform', (storefront) => {
    it.each(['100000000000000', '99999999999999.995', '-100000000000000.00'])(
      'total %s: 200 not stored, ledger failed, no order, no contact, no event',
      async (total) => {
        const tenantId = (await createTenant(db)).id;
        const shop = storefront.shop();
        const secret = `secret-${uid()}`;
        await insertRow(db, 'storefront_connections', {
          tenant_id: tenantId,
          platform: storefront.platform,
          shop_identifier: shop,
          webhook_secret_ciphertext: testSecretBox().seal(secret),
        });
        const raw = JSON.stringify(storefront.order(`buyer-${uid()}@example.test`, total));
        const tables = ['commerce_orders', 'crm_contacts'];
        const before = await footprint(tenantId, tables);
        for (let attempt = 1; attempt <= 2; attempt++) {
          const res = await post(storefront.path, raw, {
            'content-type': 'application/json',
            [storefront.shopHeader]: shop,
            [storefront.topicHeader]: storefront.topic,
            [storefront.signatureHeader]: createHmac('sha256', secret)
              .update(raw, 'utf8')
              .digest('base64'),
          });
          expect(res.status).toBe(200);
          expect(res.body).toEqual({
            received: true,
            stored: false,
            reason: `The order total ${total} does not fit commerce_orders.total numeric(16,2)`,
          });
          expect(await footprint(tenantId, tables)).toEqual(before);
          expect(await ledgerOf(storefront.platform, raw)).toEqual([
            expect.objectContaining({
              tenant_id: tenantId,
              outcome: 'failed',
              detail: `The order total ${total} does not fit commerce_orders.total numeric(16,2)`,
            }),
          ]);
        }
      },
    );
  });
});

describe('telephony: a CallDuration outside call_logs.duration_seconds (integer)', () => {
  it('200 TwiML, ledger failed with the reason, no call log, no event', async () => {
    const PATH = '/api/communications/webhooks';
    const tenantId = (await createTenant(db)).id;
    const phoneNumber = `+1${randomInt(200, 999)}${String(randomInt(0, 1e7)).padStart(7, '0')}`;
    await insertRow(db, 'telephony_numbers', {
      tenant_id: tenantId,
      phone_number: phoneNumber,
      proven_at: new Date(),
    });
    const params = {
      CallSid: `CA${uid()}${uid()}`,
      CallStatus: 'completed',
      CallDuration: '2147483648',
      Direction: 'inbound',
      From: '+14155550142',
      To: phoneNumber,
    };
    const raw = new URLSearchParams(params).toString();
    const before = await footprint(tenantId, ['call_logs']);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const res = await post(PATH, raw, {
        'content-type': 'application/x-www-form-urlencoded',
        'X-Telephony-Signature': getExpectedTwilioSignature(
          TELEPHONY_TOKEN,
          `${TEST_PUBLIC_BASE_URL}${PATH}`,
          params,
        ),
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
      expect(await footprint(tenantId, ['call_logs'])).toEqual(before);
      expect(await ledgerOf('telephony', raw)).toEqual([
        expect.objectContaining({
          tenant_id: tenantId,
          outcome: 'failed',
          detail:
            'The CallDuration 2147483648 does not fit call_logs.duration_seconds (integer, at most 2147483647)',
        }),
      ]);
    }
  });
});
