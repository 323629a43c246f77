import { createHmac, randomUUID } from 'node:crypto';
import {
  addMember,
  createAccount,
  failInsertsOf,
  insertRow,
  outboxEvents,
  signIn,
  tenantRows,
  tenantSession,
  testDb,
} from '@crm/test-kit';
import request from 'supertest';
import { testSecretBox, useReceiverStack } from './support/receiver-stack';
import { signStorefront } from './support/storefront-deliveries';
import { STOREFRONT_PLATFORMS } from './support/storefront-platforms';

/**
 * Re-processing a delivery that failed after verification, through the real gateway: a signed
 * storefront order whose write failed (an outage: inserts of the tenant's orders fail) is in
 * the tenant's ledger as failed, with its headers (the signature redacted); an owner
 * re-processes it once the outage is over and the order and its event are written exactly
 * once, however often it is re-processed; a Stripe payment the same way. Viewers and members are refused, another tenant's id
 * is a 404, and a delivery that was not verified, of a provider no receiver handles, or whose
 * payload retention dropped, is a 409 that writes nothing. (The shared-secret receivers' deliveries:
 * inbound-event-reprocess-routes-by-content.e2e.test.ts.)
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

const platform = STOREFRONT_PLATFORMS[0];
const PATH = '/api/integrations/inbound-events';
type Session = Awaited<ReturnType<typeof tenantSession>>;

let owner: Session;
let other: Session;
let viewerCookie: string;
let memberCookie: string;
const secret = platform.newSecret();
const shop = platform.newShopIdentifier();
const order = platform.order();
const body = JSON.stringify(order);
let ledgerId: string;

const reprocess = (cookie: string, id: string) =>
  request(stack.url).post(`${PATH}/${id}/reprocess`).set('Cookie', cookie);
const orders = () => tenantRows(database, 'commerce_orders', owner.tenantId);
const orderEvents = async () =>
  (await outboxEvents(database, owner.tenantId)).filter((e) => e.type === 'order.created');

beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  other = await tenantSession(stack, database, 'owner');
  for (const role of ['viewer', 'member'] as const) {
    const user = await createAccount(database, `reprocess-${role}`);
    await addMember(database, owner.tenantId, user.id, role);
    const cookie = await signIn(stack.gateway.app, user.email);
    if (role === 'viewer') viewerCookie = cookie;
    else memberCookie = cookie;
  }
  await insertRow(database, 'storefront_connections', {
    tenant_id: owner.tenantId,
    platform: platform.provider,
    shop_identifier: shop,
    webhook_secret_ciphertext: testSecretBox().seal(secret),
  });
  const outage = await failInsertsOf(database, 'commerce_orders', owner.tenantId);
  try {
    const sent = await request(stack.url)
      .post(platform.path)
      .set({
        'content-type': 'application/json',
        [platform.headers.shop]: shop,
        [platform.headers.topic]: platform.topics.orderCreated,
        [platform.headers.signature]: signStorefront(body, secret),
      })
      .send(body);
    // The write failed: the provider is told to retry.
    expect(sent.status).toBe(500);
  } finally {
    await outage.restore();
  }
  const listed = await request(stack.url)
    .get(`${PATH}?provider=${platform.provider}&outcome=failed`)
    .set('Cookie', owner.cookie);
  expect(listed.body.items).toHaveLength(1);
  ledgerId = listed.body.items[0].id;
});

it("the failed delivery is the tenant's, with its raw payload and its headers, the signature redacted", async () => {
  const res = await request(stack.url).get(`${PATH}/${ledgerId}`).set('Cookie', owner.cookie);
  expect(res.status).toBe(200);
  const { event } = res.body.data;
  expect(event).toMatchObject({
    provider: platform.provider,
    verification: 'verified',
    outcome: 'failed',
    detail: expect.stringContaining('simulated outage'),
    raw_body: body,
  });
  expect(event.headers).toMatchObject({
    [platform.headers.shop]: shop,
    [platform.headers.topic]: platform.topics.orderCreated,
    [platform.headers.signature]: '[redacted]',
    'content-type': 'application/json',
  });
  expect(JSON.stringify(res.body)).not.toContain(signStorefront(body, secret));
  expect(await orders()).toEqual([]);
});

it('a viewer and a member are refused (403), another tenant gets a 404; nothing is written', async () => {
  const viewer = await reprocess(viewerCookie, ledgerId);
  expect(viewer.status).toBe(403);
  expect(viewer.body.message).toBe('Viewers may only read');
  const member = await reprocess(memberCookie, ledgerId);
  expect(member.status).toBe(403);
  expect(member.body.message).toBe('This action needs one of the roles: owner, admin');
  for (const id of [ledgerId, 'not-a-uuid']) {
    const theirs = await reprocess(other.cookie, id);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'NOT_FOUND', message: 'Inbound event not found' });
  }
  expect(await orders()).toEqual([]);
});

it('re-processed by an owner: the order and its event are written once, however often', async () => {
  const first = await reprocess(owner.cookie, ledgerId);
  expect(first.status).toBe(200);
  expect(first.body.data).toMatchObject({
    reprocessed: true,
    event: { id: ledgerId, outcome: 'processed', attempts: 2 },
  });
  expect(first.body.message).toBe('Re-processed: processed');
  const stored = await orders();
  expect(stored).toHaveLength(1);
  expect(stored[0].external_order_id).toBe(String(order.id));
  expect(await orderEvents()).toHaveLength(1);

  const again = await reprocess(owner.cookie, ledgerId);
  expect(again.status).toBe(200);
  expect(again.body.data).toMatchObject({ reprocessed: false, event: { outcome: 'processed' } });
  expect(again.body.message).toBe('The delivery is already processed: nothing was written again');
  // The provider's own retry after that is a redelivery too.
  const retry = await request(stack.url)
    .post(platform.path)
    .set({
      'content-type': 'application/json',
      [platform.headers.shop]: shop,
      [platform.headers.topic]: platform.topics.orderCreated,
      [platform.headers.signature]: signStorefront(body, secret),
    })
    .send(body);
  expect(retry.body).toEqual({ received: true, duplicate: true });
  expect(await orders()).toHaveLength(1);
  expect(await orderEvents()).toHaveLength(1);
});

it.each([
  [
    'accepted unverified',
    { provider: platform.provider, verification: 'unverified' },
    'Only a delivery whose signature was verified can be re-processed; this one was accepted unverified',
  ],
  [
    'of a provider no receiver handles',
    { provider: 'legacy_fax', verification: 'verified' },
    "Re-processing is offered for the deliveries of this platform's receivers; no receiver handles legacy_fax deliveries",
  ],
  [
    'of a deleted connection',
    { provider: 'payments_stripe', verification: 'verified' },
    'The connection this delivery came through has been deleted: it cannot be re-processed',
  ],
  [
    'whose payload retention dropped',
    { provider: platform.provider, verification: 'verified', raw_body: null, headers: null },
    'The delivery can no longer be re-processed: its payload is kept for a limited time (30 days by default) and has been removed',
  ],
])('a failed delivery %s -> 409, nothing written', async (_, values, message) => {
  const { id } = await insertRow(database, 'inbound_events', {
    tenant_id: owner.tenantId,
    delivery_id: `${randomUUID()}:order:1@2030`,
    raw_body: body,
    outcome: 'failed',
    detail: 'failed for the test',
    ...values,
  });
  const res = await reprocess(owner.cookie, id);
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({ success: false, code: 'CONFLICT', message });
  const row = (await request(stack.url).get(`${PATH}/${id}`).set('Cookie', owner.cookie)).body.data
    .event;
  expect(row).toMatchObject({ outcome: 'failed', attempts: 1 });
  expect(await orders()).toHaveLength(1);
});

it('a Stripe payment that failed after verification is stored once on re-processing', async () => {
  const paymentSecret = `whsec_${randomUUID()}`;
  const { id: connectionId } = await insertRow(database, 'payment_connections', {
    tenant_id: owner.tenantId,
    provider: 'stripe',
    webhook_secret_ciphertext: testSecretBox().seal(paymentSecret),
  });
  const created = Math.floor(Date.now() / 1000);
  const payment = JSON.stringify({
    id: `evt_${randomUUID()}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    created,
    data: {
      object: {
        id: `pi_${randomUUID()}`,
        object: 'payment_intent',
        amount: 2500,
        amount_received: 2500,
        currency: 'usd',
      },
    },
  });
  const signature = createHmac('sha256', paymentSecret)
    .update(`${created}.${payment}`)
    .digest('hex');
  const outage = await failInsertsOf(database, 'payment_events', owner.tenantId);
  try {
    const sent = await request(stack.url)
      .post(`/api/payments/webhook?provider=stripe&connection=${connectionId}`)
      .set({
        'content-type': 'application/json',
        'Stripe-Signature': `t=${created},v1=${signature}`,
      })
      .send(payment);
    expect(sent.status).toBe(500);
  } finally {
    await outage.restore();
  }
  const payments = () => tenantRows(database, 'payment_events', owner.tenantId);
  const failed = await request(stack.url)
    .get(`${PATH}?provider=payments_stripe&outcome=failed`)
    .set('Cookie', owner.cookie);
  const row = failed.body.items.find((e: { delivery_id: string }) =>
    e.delivery_id.startsWith(`${connectionId}:`),
  );
  expect(row).toMatchObject({ verification: 'verified', outcome: 'failed' });
  expect(await payments()).toEqual([]);

  const first = await reprocess(owner.cookie, row.id);
  expect(first.status).toBe(200);
  expect(first.body.data).toMatchObject({ reprocessed: true, event: { outcome: 'processed' } });
  expect(await payments()).toMatchObject([{ kind: 'payment.succeeded', amount: '25.00' }]);
  const again = await reprocess(owner.cookie, row.id);
  expect(again.body.data.reprocessed).toBe(false);
  expect(await payments()).toHaveLength(1);
});
