import { randomUUID } from 'node:crypto';
import { createTenant, ledgerRows, outboxEvents, tenantRows, testDb } from '@crm/test-kit';
import Stripe from 'stripe';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * Specified: with BILLING_WEBHOOK_SECRET unset the billing receiver
 * refuses every POST with `Webhook secret not configured` (503, our choice for the status
 * the specification leaves open), before looking at the signature header, and writes nothing.
 * The readiness GET still answers.
 */
const stack = useReceiverStack({});
const db = testDb();
afterAll(() => db.close());
const PATH = '/api/webhooks/billing';
const NOT_CONFIGURED = {
  success: false,
  error: 'Webhook secret not configured',
  code: 'SERVICE_UNAVAILABLE',
  message: 'The billing receiver has no signing secret configured',
  details: null,
};

describe('billing receiver without BILLING_WEBHOOK_SECRET', () => {
  let tenantId: string;
  let payload: string;
  const eventId = `evt_${randomUUID()}`;
  beforeAll(async () => {
    tenantId = (await createTenant(db)).id;
    payload = JSON.stringify({
      id: eventId,
      type: 'customer.subscription.created',
      data: {
        object: { id: 'sub_unconfigured', status: 'active', metadata: { tenant_id: tenantId } },
      },
    });
  });

  // Scoped to this delivery and tenant: the other billing test file writes concurrently.
  const writes = async () => ({
    ledger: (await ledgerRows(db, 'billing')).filter(
      (row) => row.delivery_id === eventId || row.tenant_id === tenantId,
    ).length,
    subscriptions: (await tenantRows(db, 'billing_subscriptions', tenantId)).length,
    outbox: (await outboxEvents(db, tenantId)).length,
  });

  it('refuses a delivery signed with any secret: 503, nothing written', async () => {
    const before = await writes();
    const signature = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({
      payload,
      secret: 'whsec_whatever',
    });
    const res = await request(stack.url)
      .post(PATH)
      .set('content-type', 'application/json')
      .set('billing-signature', signature)
      .send(payload);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(NOT_CONFIGURED);
    expect(await writes()).toEqual(before);
  });

  it('checks the secret first: a delivery without the header is refused the same way', async () => {
    const before = await writes();
    const res = await request(stack.url)
      .post(PATH)
      .set('content-type', 'application/json')
      .send(payload);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(NOT_CONFIGURED);
    expect(await writes()).toEqual(before);
  });

  it('still answers the readiness GET', async () => {
    const res = await request(stack.url).get(PATH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});
