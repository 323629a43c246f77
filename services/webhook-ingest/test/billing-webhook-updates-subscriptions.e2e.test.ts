import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { createTenant, ledgerRows, outboxEvents, tenantRows, testDb } from '@crm/test-kit';
import Stripe from 'stripe';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * POST /api/webhooks/billing through the gateway, signed by Stripe's own SDK
 * (generateTestHeaderString) under `billing-signature`: subscription events update the
 * tenant's billing_subscriptions record, its plan and the outbox; everything else is
 * acknowledged; every refused delivery is shown to write nothing (ledger, subscriptions,
 * outbox, plan). Other test files write billing rows and ledger rows at the same time, so that
 * is counted in the delivery's tenant, and the delivery's own ledger row is looked up by its
 * event id or its bytes.
 */
const SECRET = 'whsec_billing_receiver_test_c2VjcmV0';
const PATH = '/api/webhooks/billing';
const stack = useReceiverStack({ BILLING_WEBHOOK_SECRET: SECRET });
const db = testDb();
afterAll(() => db.close());
const sdk = new Stripe('sk_test_unused');

const nowSeconds = () => Math.floor(Date.now() / 1000);
const uid = () => randomUUID().replace(/-/g, '').slice(0, 14);
const PERIOD_END = 1_767_225_600; // 2026-01-01T00:00:00Z

const sign = (payload: string, { secret = SECRET, timestamp = nowSeconds() } = {}) =>
  sdk.webhooks.generateTestHeaderString({ payload, secret, timestamp });

function post(payload: string, signature: string | null = sign(payload)) {
  const req = request(stack.url).post(PATH).set('content-type', 'application/json');
  if (signature !== null) req.set('billing-signature', signature);
  return req.send(payload);
}

function stripeEvent(type: string, object: object, id = `evt_${uid()}`) {
  return {
    id,
    payload: JSON.stringify({
      id,
      object: 'event',
      api_version: '2024-06-20',
      created: nowSeconds(),
      livemode: false,
      type,
      data: { object },
    }),
  };
}

function subscription(overrides: Record<string, unknown> = {}) {
  return {
    id: `sub_${uid()}`,
    object: 'subscription',
    customer: `cus_${uid()}`,
    status: 'active',
    metadata: {},
    current_period_end: PERIOD_END,
    items: {
      object: 'list',
      data: [{ id: 'si_1', price: { id: 'price_pro', lookup_key: 'pro' } }],
    },
    ...overrides,
  };
}

async function planOf(tenantId: string): Promise<string> {
  const row = await withSystemScope(db.db, (trx) =>
    trx.selectFrom('tenants').select('plan').where('id', '=', tenantId).executeTakeFirstOrThrow(),
  );
  return row.plan;
}

async function subscriptionsOf(tenantId: string) {
  return tenantRows(db, 'billing_subscriptions', tenantId);
}

async function ledgerRow(deliveryId: string) {
  return (await ledgerRows(db, 'billing')).find((row) => row.delivery_id === deliveryId);
}

/** The billing ledger rows of exactly these bytes (a body with no event id has no other key). */
async function ledgerOfBytes(raw: string) {
  return (await ledgerRows(db, 'billing')).filter((row) => row.raw_body === raw);
}

/** Everything a billing delivery could write for `tenantId`, to show a refusal wrote nothing. */
async function writesFor(tenantId: string) {
  return {
    ledger: (await ledgerRows(db, 'billing')).filter((row) => row.tenant_id === tenantId).length,
    subscriptions: (await subscriptionsOf(tenantId)).length,
    outbox: (await outboxEvents(db, tenantId)).length,
    plan: await planOf(tenantId),
  };
}

const newTenant = async () => (await createTenant(db)).id;

describe('GET /api/webhooks/billing', () => {
  it('answers 200 { status: "ok" } (readiness)', async () => {
    const res = await request(stack.url).get(PATH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

describe('a subscription from creation to cancellation', () => {
  let tenantId: string;
  const sub = subscription();
  let created: ReturnType<typeof stripeEvent>;
  beforeAll(async () => {
    tenantId = await newTenant();
    sub.metadata = { tenant_id: tenantId };
    created = stripeEvent('customer.subscription.created', sub);
  });

  it('created (tenant from metadata): the record, the plan, one event, a processed ledger row', async () => {
    expect(await planOf(tenantId)).toBe('free');
    const res = await post(created.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });

    const [record, ...others] = await subscriptionsOf(tenantId);
    expect(others).toEqual([]);
    expect(record).toMatchObject({
      provider_subscription_id: sub.id,
      provider_customer_id: sub.customer,
      plan: 'pro',
      status: 'active',
      current_period_end: new Date(PERIOD_END * 1000),
    });
    expect(await planOf(tenantId)).toBe('pro');
    const events = await outboxEvents(db, tenantId);
    expect(events.map((e) => e.type)).toEqual(['billing.subscription_updated']);
    expect(events[0].envelope).toMatchObject({
      type: 'billing.subscription_updated',
      tenant_id: tenantId,
      record: { module: 'billing', id: record.id },
      data: {
        event_type: 'customer.subscription.created',
        provider_subscription_id: sub.id,
        status: 'active',
        plan: 'pro',
        current_period_end: '2026-01-01T00:00:00.000Z',
        tenant_plan: 'pro',
      },
    });
    expect(await ledgerRow(created.id)).toMatchObject({
      tenant_id: tenantId,
      event_type: 'customer.subscription.created',
      raw_body: created.payload,
      verification: 'verified',
      outcome: 'processed',
    });
  });

  it('a redelivery of the same event id: 200 duplicate, nothing new written', async () => {
    const before = await writesFor(tenantId);
    const res = await post(created.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: true });
    expect(await writesFor(tenantId)).toEqual(before);
  });

  it('updated to past_due (tenant from the stored customer id): record updated, plan kept', async () => {
    const updated = stripeEvent(
      'customer.subscription.updated',
      subscription({
        id: sub.id,
        customer: sub.customer,
        status: 'past_due',
        metadata: {},
        items: { data: [{ price: { id: 'price_business', lookup_key: 'business' } }] },
      }),
    );
    const res = await post(updated.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    const records = await subscriptionsOf(tenantId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 'past_due', plan: 'business' });
    expect(await planOf(tenantId)).toBe('pro');
    const events = await outboxEvents(db, tenantId);
    expect(events).toHaveLength(2);
    expect(events[1].envelope).toMatchObject({
      data: { status: 'past_due', plan: 'business', tenant_plan: null },
    });
    expect(await ledgerRow(updated.id)).toMatchObject({
      tenant_id: tenantId,
      outcome: 'processed',
    });
  });

  it('invoice.paid (API 2025-03-31 shape): active again, its period end, the plan applied', async () => {
    const paid = stripeEvent('invoice.paid', {
      id: `in_${uid()}`,
      object: 'invoice',
      customer: sub.customer,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: sub.id, metadata: { tenant_id: tenantId } },
      },
      lines: {
        data: [
          {
            pricing: { type: 'price_details', price_details: { price: 'price_1Xyz' } },
            period: { start: PERIOD_END, end: PERIOD_END + 2_678_400 },
          },
        ],
      },
    });
    const res = await post(paid.payload);
    expect(res.status).toBe(200);
    const [record] = await subscriptionsOf(tenantId);
    expect(record).toMatchObject({
      status: 'active',
      plan: 'business',
      current_period_end: new Date((PERIOD_END + 2_678_400) * 1000),
    });
    expect(await planOf(tenantId)).toBe('business');
  });

  it('invoice.payment_failed (pre-2025 shape): past_due, plan kept', async () => {
    const failed = stripeEvent('invoice.payment_failed', {
      id: `in_${uid()}`,
      object: 'invoice',
      customer: sub.customer,
      subscription: sub.id,
      subscription_details: { metadata: { tenant_id: tenantId } },
      lines: { data: [{ price: { id: 'price_business', lookup_key: 'business' } }] },
    });
    const res = await post(failed.payload);
    expect(res.status).toBe(200);
    expect((await subscriptionsOf(tenantId))[0]).toMatchObject({ status: 'past_due' });
    expect(await planOf(tenantId)).toBe('business');
  });

  it('deleted: canceled, and the tenant is back on the free plan', async () => {
    const deleted = stripeEvent(
      'customer.subscription.deleted',
      subscription({
        id: sub.id,
        customer: sub.customer,
        status: 'canceled',
        metadata: sub.metadata,
      }),
    );
    const res = await post(deleted.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    const records = await subscriptionsOf(tenantId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 'canceled' });
    expect(await planOf(tenantId)).toBe('free');
    const events = await outboxEvents(db, tenantId);
    expect(events).toHaveLength(5);
    expect(events[4].envelope).toMatchObject({
      data: {
        event_type: 'customer.subscription.deleted',
        status: 'canceled',
        tenant_plan: 'free',
      },
    });
  });
});

describe('the tenant plan follows its live subscriptions', () => {
  it('cancelling one of two active subscriptions leaves the other one plan', async () => {
    const tenantId = await newTenant();
    const pro = subscription({ metadata: { tenant_id: tenantId } });
    const team = subscription({
      metadata: { tenant_id: tenantId },
      items: { data: [{ price: { id: 'price_team', lookup_key: null } }] },
    });
    for (const sub of [pro, team]) {
      expect((await post(stripeEvent('customer.subscription.created', sub).payload)).status).toBe(
        200,
      );
    }
    // No lookup key: the price id is the plan.
    expect(await planOf(tenantId)).toBe('price_team');
    const deleted = stripeEvent('customer.subscription.deleted', { ...team, status: 'canceled' });
    expect((await post(deleted.payload)).status).toBe(200);
    expect(await planOf(tenantId)).toBe('pro');
  });
});

describe('checkout.session.completed', () => {
  it('in subscription mode: an active record with the plan from metadata (tenant from client_reference_id)', async () => {
    const tenantId = await newTenant();
    const subscriptionId = `sub_${uid()}`;
    const event = stripeEvent('checkout.session.completed', {
      id: `cs_${uid()}`,
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: tenantId,
      customer: `cus_${uid()}`,
      subscription: subscriptionId,
      metadata: { plan: 'starter' },
    });
    const res = await post(event.payload);
    expect(res.status).toBe(200);
    expect(await subscriptionsOf(tenantId)).toEqual([
      expect.objectContaining({
        provider_subscription_id: subscriptionId,
        status: 'active',
        plan: 'starter',
        current_period_end: null,
      }),
    ]);
    expect(await planOf(tenantId)).toBe('starter');
  });

  it('in payment mode (no subscription): acknowledged, ignored, nothing stored', async () => {
    const tenantId = await newTenant();
    const before = await writesFor(tenantId);
    const event = stripeEvent('checkout.session.completed', {
      id: `cs_${uid()}`,
      mode: 'payment',
      customer: null,
      subscription: null,
      metadata: { tenant_id: tenantId },
    });
    const res = await post(event.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await writesFor(tenantId)).toEqual(before);
    expect(await ledgerRow(event.id)).toMatchObject({
      tenant_id: null,
      outcome: 'ignored',
      detail: 'checkout.session.completed without a subscription',
    });
  });
});

describe('verified events that change nothing are acknowledged with 200', () => {
  it('no tenant for the subscription: ledger outcome unmatched, nothing stored', async () => {
    const sub = subscription({ metadata: { tenant_id: randomUUID() } });
    const event = stripeEvent('customer.subscription.created', sub);
    const res = await post(event.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await ledgerRow(event.id)).toMatchObject({
      tenant_id: null,
      outcome: 'unmatched',
      detail: `No tenant for subscription ${sub.id}`,
    });
    const stored = await withSystemScope(db.db, (trx) =>
      trx
        .selectFrom('billing_subscriptions')
        .select('id')
        .where('provider_subscription_id', '=', sub.id)
        .execute(),
    );
    expect(stored).toEqual([]);
  });

  it('a subscription recorded for another tenant: unmatched, neither tenant changed', async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const sub = subscription({ metadata: { tenant_id: owner } });
    expect((await post(stripeEvent('customer.subscription.created', sub).payload)).status).toBe(
      200,
    );
    const ownerBefore = await writesFor(owner);
    const otherBefore = await writesFor(other);
    const hijack = stripeEvent(
      'customer.subscription.updated',
      subscription({
        id: sub.id,
        customer: `cus_${uid()}`,
        status: 'canceled',
        metadata: { tenant_id: other },
      }),
    );
    const res = await post(hijack.payload);
    expect(res.status).toBe(200);
    expect(await ledgerRow(hijack.id)).toMatchObject({
      tenant_id: null,
      outcome: 'unmatched',
      detail: `Subscription ${sub.id} is recorded for another tenant`,
    });
    expect(await writesFor(owner)).toEqual(ownerBefore);
    expect(await writesFor(other)).toEqual(otherBefore);
    expect((await subscriptionsOf(owner))[0]).toMatchObject({ status: 'active', plan: 'pro' });
  });

  it('another event type: ledger outcome ignored', async () => {
    const event = stripeEvent('customer.created', { id: `cus_${uid()}`, object: 'customer' });
    const res = await post(event.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await ledgerRow(event.id)).toMatchObject({
      tenant_id: null,
      event_type: 'customer.created',
      outcome: 'ignored',
      detail: 'Event type customer.created is not handled',
    });
  });
});

describe('verified bodies Postgres could not store as sent', () => {
  it('"\\u0000" and a lone surrogate in strings and keys: stored with U+FFFD, 200 (not a 500)', async () => {
    const tenantId = await newTenant();
    const sub = subscription({
      customer: `cus_${uid()}\u0000x`,
      metadata: { tenant_id: tenantId, 'note\u0000': 'a\u0000b \ud800' },
    });
    const event = stripeEvent('customer.subscription.created', sub, `evt_${uid()}\u0000`);
    // JSON.stringify writes both as escapes (`\u0000`, `\ud800`): the bytes a sender would send.
    expect(event.payload).toContain('\\u0000');
    expect(event.payload).toContain('\\ud800');

    const res = await post(event.payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect(await subscriptionsOf(tenantId)).toEqual([
      expect.objectContaining({
        provider_subscription_id: sub.id,
        provider_customer_id: (sub.customer as string).replace('\u0000', '\uFFFD'),
        status: 'active',
      }),
    ]);
    expect(await ledgerRow(event.id.replace('\u0000', '\uFFFD'))).toMatchObject({
      tenant_id: tenantId,
      outcome: 'processed',
    });
  });

  it('a signed body nested 10,000 levels deep: 400, nothing written', async () => {
    const tenantId = await newTenant();
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const event = stripeEvent(
      'customer.subscription.created',
      subscription({ metadata: { tenant_id: tenantId, deep: 'DEEP' } }),
    );
    const body = event.payload.replace('"DEEP"', deep);
    const before = await writesFor(tenantId);
    const res = await post(body, sign(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: 'The request body nests deeper than 64 levels',
      details: null,
    });
    expect(await writesFor(tenantId)).toEqual(before);
    expect(await ledgerRow(event.id)).toBeUndefined();
    expect(await ledgerOfBytes(body)).toEqual([]);
  });
});

describe('refused deliveries write nothing', () => {
  let tenantId: string;
  let eventId: string;
  let payload: string;
  beforeAll(async () => {
    tenantId = await newTenant();
    ({ id: eventId, payload } = stripeEvent(
      'customer.subscription.created',
      subscription({ metadata: { tenant_id: tenantId } }),
    ));
  });

  const INVALID_SIGNATURE = {
    success: false,
    error: 'Invalid signature',
    code: 'UNAUTHORIZED',
    message: 'The signature does not match the request body',
    details: null,
  };
  const STALE = {
    ...INVALID_SIGNATURE,
    message: "The signature timestamp is more than 300 seconds from the server's clock",
  };
  const PROCESSING_FAILED = {
    success: false,
    error: 'Webhook processing failed',
    code: 'INVALID_REQUEST',
    details: null,
  };

  /**
   * Posts `sent` under `signature`: the answer expected, nothing written for the tenant, and no
   * ledger row of the event or of these bytes (one without a tenant is not in its counts).
   */
  async function expectRefused(
    sent: string,
    signature: string | null,
    status: number,
    body: Record<string, unknown>,
  ) {
    const before = await writesFor(tenantId);
    const res = await post(sent, signature);
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
    expect(await writesFor(tenantId)).toEqual(before);
    expect(await ledgerRow(eventId)).toBeUndefined();
    expect(await ledgerOfBytes(sent)).toEqual([]);
  }

  it('missing billing-signature header: 400', async () => {
    await expectRefused(payload, null, 400, {
      success: false,
      error: 'Missing signature header',
      code: 'INVALID_REQUEST',
      message: 'The billing-signature header is required',
      details: { header: 'billing-signature' },
    });
  });

  it('tampered body: 401', async () => {
    const tampered = payload.replace('"active"', '"trialing"');
    await expectRefused(tampered, sign(payload), 401, INVALID_SIGNATURE);
  });

  it('signed with another secret: 401', async () => {
    await expectRefused(payload, sign(payload, { secret: 'whsec_other' }), 401, INVALID_SIGNATURE);
  });

  it('a timestamp an hour old, or an hour ahead: 401', async () => {
    for (const timestamp of [nowSeconds() - 3600, nowSeconds() + 3600]) {
      await expectRefused(payload, sign(payload, { timestamp }), 401, STALE);
    }
  });

  it('a malformed header: 401', async () => {
    await expectRefused(payload, 'v1=deadbeef', 401, {
      ...INVALID_SIGNATURE,
      message: 'The signature header is malformed',
    });
  });

  it('a verified body that is not JSON: 400 processing failed', async () => {
    const text = 'not json {';
    await expectRefused(text, sign(text), 400, {
      ...PROCESSING_FAILED,
      message: 'The request body is not valid JSON',
    });
  });

  it.each([
    ['an array', '[]'],
    ['no id', JSON.stringify({ type: 'customer.subscription.created', data: { object: {} } })],
    ['no type', JSON.stringify({ id: 'evt_no_type', data: { object: {} } })],
  ])('a verified body that is not an event (%s): 400 processing failed', async (_case, body) => {
    await expectRefused(body, sign(body), 400, {
      ...PROCESSING_FAILED,
      message: 'The body is not a billing event (id and type required)',
    });
  });

  it('a subscription event whose object has no id: 400 processing failed', async () => {
    const { id: _id, ...withoutId } = subscription({ metadata: { tenant_id: tenantId } });
    const body = stripeEvent('customer.subscription.updated', withoutId).payload;
    await expectRefused(body, sign(body), 400, {
      ...PROCESSING_FAILED,
      message: 'The event object does not have the expected shape',
      details: { issues: [{ path: 'id', message: expect.any(String) }] },
    });
  });
});

describe('the log line of a delivery', () => {
  it('carries the request_id the provider got back in x-request-id', async () => {
    const event = stripeEvent('invoice.paid', { id: `in_${uid()}`, object: 'invoice' });
    const res = await post(event.payload);
    expect(res.status).toBe(200);
    const requestId = res.headers['x-request-id'];
    expect(requestId).toEqual(expect.any(String));
    const line = stack.log
      .lines()
      .find((l) => l.msg === 'billing webhook received' && l.request_id === requestId);
    expect(line).toMatchObject({ provider: 'billing', eventType: 'invoice.paid' });
  });
});
