import { sessionClient, tenantSession, testDb, tenantRowCounts } from '@crm/test-kit';
import type request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * Every write under /api/integrations used to pass a U+0000 or an unpaired
 * surrogate on to Postgres, which refused it: 500. Through the real gateway, each is now a 400
 * VALIDATION_ERROR naming the field, and the tenant's rows are as they were.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

let owner: Awaited<ReturnType<typeof tenantSession>>;
let storefrontId: string;
let paymentId: string;
beforeAll(async () => {
  owner = await tenantSession(stack, database, 'owner');
  const shop = await api().post('/api/integrations/storefront-connections', {
    platform: 'storefront_a',
    shop_identifier: `hostile-${owner.tenantId.slice(0, 8)}.example.com`,
  });
  expect(shop.status).toBe(201);
  storefrontId = shop.body.data.connection.id;
  const payment = await api().post('/api/integrations/payment-connections', {
    provider: 'stripe',
    webhookSecret: 'whsec_test',
  });
  expect(payment.status).toBe(201);
  paymentId = payment.body.data.connection.id;
});

const api = () => sessionClient(stack.url, owner.cookie);

function expectRefused(res: request.Response, path: string, code: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status: 400,
    body: {
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      details: { issues: [{ path, code, message: expect.any(String) }] },
    },
  });
}

const NUL = '\u0000';
const LONE = '\ud800';

it.each([
  ['POST', 'network-accounts', { external_account_id: 'urn:x', name: `Team${NUL}` }, 'name'],
  ['POST', 'network-accounts', { external_account_id: `urn:${LONE}` }, 'external_account_id'],
  ['POST', 'messaging-accounts', { phone_number_id: '123', name: `A${LONE}` }, 'name'],
  ['POST', 'messaging-accounts', { phone_number_id: `1${NUL}2` }, 'phone_number_id'],
  ['POST', 'telephony-numbers', { phone_number: '+14155550100', name: NUL }, 'name'],
  [
    'POST',
    'storefront-connections',
    { platform: 'storefront_a', shop_identifier: 'a.example.com', name: `S${NUL}` },
    'name',
  ],
  [
    'POST',
    'storefront-connections',
    {
      platform: 'storefront_b',
      shop_identifier: 'https://b.example.com',
      webhookSecret: `s${NUL}`,
    },
    'webhookSecret',
  ],
  ['PATCH', 'storefront-connections/:storefront', { name: `S${LONE}` }, 'name'],
  ['POST', 'payment-connections', { provider: 'stripe', webhookSecret: 'w', name: NUL }, 'name'],
  ['PATCH', 'payment-connections/:payment', { name: `P${NUL}` }, 'name'],
  ['PATCH', 'payment-connections/:payment', { webhookSecret: `w${LONE}` }, 'webhookSecret'],
])(
  '%s /api/integrations/%s with %j -> 400 naming the field, no row',
  async (method, resource, body, field) => {
    const path = `/api/integrations/${resource}`
      .replace(':storefront', () => storefrontId)
      .replace(':payment', () => paymentId);
    const before = await tenantRowCounts(database, owner.tenantId);
    const res = method === 'POST' ? await api().post(path, body) : await api().patch(path, body);
    expectRefused(res, field, 'invalid_format');
    expect(await tenantRowCounts(database, owner.tenantId)).toEqual(before);
  },
);

it('a key with NUL -> 400 naming the key; deep nesting -> 400', async () => {
  expectRefused(
    await api().post('/api/integrations/network-accounts', {
      external_account_id: 'urn:y',
      ['n\u0000']: 1,
    }),
    'n\\u0000',
    'invalid_key',
  );
  const deep = {
    external_account_id: 'urn:z',
    name: JSON.parse('['.repeat(100) + ']'.repeat(100)),
  };
  expectRefused(
    await api().post('/api/integrations/network-accounts', deep),
    `name${'.0'.repeat(63)}`,
    'too_big',
  );
});

it('GET /api/integrations/inbound-events?provider=%00 -> 400 naming provider', async () => {
  expectRefused(
    await api().get('/api/integrations/inbound-events?provider=%00'),
    'provider',
    'invalid_format',
  );
});
