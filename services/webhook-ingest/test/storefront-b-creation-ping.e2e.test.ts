import { randomInt } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { testDb } from '@crm/test-kit';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';
import {
  EMPTY_TENANT,
  signStorefront,
  storefrontDeliveries,
} from './support/storefront-deliveries';
import { STOREFRONT_B } from './support/storefront-platforms';

/**
 * Storefront B's creation ping, the one thing only that platform does (the rest of its
 * receiver is in storefront-receivers.e2e.test.ts): an unsigned `webhook_id=<id>` form body
 * sent when a webhook is created, answered 200 without storing anything.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

const { connectShop, deliver, footprint } = storefrontDeliveries(
  STOREFRONT_B,
  database,
  () => stack.url,
);
const pingBody = () => `webhook_id=${randomInt(1, 2 ** 40)}`;

async function pingLeavesNoTrace(body: string) {
  // A ledger row keeps its payload in inbound_event_payloads (the row's own column is legacy).
  const rows = await withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('inbound_event_payloads')
      .select('ledger_id')
      .where('raw_body', '=', body)
      .execute(),
  );
  expect(rows).toEqual([]);
}

it('unsigned `webhook_id=<id>` without a source: 200 and nothing stored, not even a ledger row', async () => {
  const body = pingBody();
  const res = await request(stack.url)
    .post(STOREFRONT_B.path)
    .set('content-type', 'application/x-www-form-urlencoded')
    .send(body);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true });
  await pingLeavesNoTrace(body);
});

it('with the source of a connection that has a secret: still 200, nothing in that tenant', async () => {
  const shop = await connectShop();
  const body = pingBody();
  const res = await request(stack.url)
    .post(STOREFRONT_B.path)
    .set('content-type', 'application/x-www-form-urlencoded')
    .set(STOREFRONT_B.headers.shop, STOREFRONT_B.shopHeader(shop.identifier))
    .send(body);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ received: true });
  await pingLeavesNoTrace(body);
  expect(await footprint(shop.tenantId)).toEqual(EMPTY_TENANT);
});

it('a ping-shaped body with a wrong signature is a delivery, and refused: 401', async () => {
  const shop = await connectShop();
  const body = pingBody();
  const res = await deliver(shop, { body, signature: signStorefront(body, 'wrong') });
  expect(res.status).toBe(401);
  await pingLeavesNoTrace(body);
  expect(await footprint(shop.tenantId)).toEqual(EMPTY_TENANT);
});
