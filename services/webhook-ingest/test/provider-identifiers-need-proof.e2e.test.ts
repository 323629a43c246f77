import { createHash, createHmac, randomInt, randomUUID } from 'node:crypto';
import { ledgerRows, sessionClient, tenantRows, tenantSession, testDb } from '@crm/test-kit';
import request from 'supertest';
import { TEST_PUBLIC_BASE_URL, useReceiverStack } from './support/receiver-stack';
import { STOREFRONT_PLATFORMS } from './support/storefront-platforms';

/**
 * Provider identifiers are claims that must be proven (specified): registering another
 * business's messaging number or shop must not route that business's deliveries to the
 * registering tenant, and registration must not reveal whether another tenant claims the
 * identifier. Through the real gateway, against real Postgres; every "not stored" is checked
 * in the database.
 */
const APP_SECRET = 'messaging-app-secret-for-proof-tests';
const stack = useReceiverStack({ MESSAGING_APP_SECRET: APP_SECRET });
const database = testDb();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const api = (session: Session) => sessionClient(stack.url, session.cookie);
const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);

const MESSAGING_PATH = '/api/messaging/webhooks/cloud-api';
const digestId = (raw: string) => `sha256:${createHash('sha256').update(raw).digest('hex')}`;

function messagingDelivery(phoneNumberId: string, text: string) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA-1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: 'Vic' }, wa_id: '15557654321' }],
              messages: [
                {
                  from: '15557654321',
                  id: `wamid.${randomUUID()}`,
                  timestamp: '1717000000',
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

/** Posts a delivery signed with the platform's app secret, as the provider does. */
function postMessaging(raw: string, pathAndQuery = MESSAGING_PATH) {
  const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
  return request(stack.url)
    .post(pathAndQuery)
    .set('content-type', 'application/json')
    .set('x-hub-signature-256', signature)
    .send(raw);
}

/** The path and query of a verification URL the API returned (the gateway's public address). */
function pathOf(verificationUrl: string): string {
  expect(verificationUrl.startsWith(TEST_PUBLIC_BASE_URL)).toBe(true);
  return verificationUrl.slice(TEST_PUBLIC_BASE_URL.length);
}

async function ledgerIdsVisibleTo(session: Session): Promise<string[]> {
  const res = await api(session).get('/api/integrations/inbound-events?pageSize=100');
  expect(res.status).toBe(200);
  return (res.body.items as { id: string }[]).map((item) => item.id);
}

describe('a squatter registers a messaging phone_number_id before its owner', () => {
  const phoneNumberId = `pn-vic-${unique()}`;
  let squatter: Session;
  let victim: Session;
  const secretText = 'my card ends 4242';
  let raw: string;

  beforeAll(async () => {
    squatter = await tenantSession(stack, database, 'owner');
    victim = await tenantSession(stack, database, 'owner');
    const res = await api(squatter).post('/api/integrations/messaging-accounts', {
      phone_number_id: phoneNumberId,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.account.status).toBe('pending');
    raw = messagingDelivery(phoneNumberId, secretText);
  });

  it('a correctly signed delivery for the number is held: 200, stored in no tenant, visible to none', async () => {
    const res = await postMessaging(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });

    expect(await tenantRows(database, 'chat_messages', squatter.tenantId)).toEqual([]);
    expect(await tenantRows(database, 'chat_conversations', squatter.tenantId)).toEqual([]);
    const [held, ...others] = (await ledgerRows(database, 'messaging')).filter(
      (row) => row.delivery_id === digestId(raw),
    );
    expect(others).toEqual([]);
    expect(held).toMatchObject({ tenant_id: null, outcome: 'held', verification: 'verified' });
    expect(await ledgerIdsVisibleTo(squatter)).not.toContain(held.id);
  });

  it('the owner registers the same number: 201 like any unclaimed number, pending', async () => {
    const res = await api(victim).post('/api/integrations/messaging-accounts', {
      phone_number_id: phoneNumberId,
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Messaging account connected');
    expect(res.body.data.account).toMatchObject({
      phone_number_id: phoneNumberId,
      status: 'pending',
    });
  });

  it('the owner proves control (the provider delivers to its verification URL): stored for the owner only', async () => {
    const list = await api(victim).get('/api/integrations/messaging-accounts');
    const [account] = list.body.items;
    const proving = messagingDelivery(phoneNumberId, 'hello from the real number');
    const res = await postMessaging(proving, pathOf(account.verificationUrl));
    expect(res.status).toBe(200);

    const stored = await tenantRows(database, 'chat_messages', victim.tenantId);
    expect(stored.map((m) => m.body)).toEqual(['hello from the real number']);
    expect(await tenantRows(database, 'chat_messages', squatter.tenantId)).toEqual([]);
    const mine = await api(victim).get(`/api/integrations/messaging-accounts/${account.id}`);
    expect(mine.body.data.account.status).toBe('proven');

    // Later deliveries to the plain receiver URL follow the proven claim.
    const later = messagingDelivery(phoneNumberId, 'second message');
    expect((await postMessaging(later)).status).toBe(200);
    expect((await tenantRows(database, 'chat_messages', victim.tenantId)).length).toBe(2);
    expect(await tenantRows(database, 'chat_messages', squatter.tenantId)).toEqual([]);
  });

  it("the squatter's own verification URL proves nothing for a number it does not control", async () => {
    const list = await api(squatter).get('/api/integrations/messaging-accounts');
    const [account] = list.body.items;
    // A replay of the held body to the squatter's URL is a duplicate of the recorded delivery.
    const res = await postMessaging(raw, pathOf(account.verificationUrl));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: true });
    expect(await tenantRows(database, 'chat_messages', squatter.tenantId)).toEqual([]);
    const again = await api(squatter).get(`/api/integrations/messaging-accounts/${account.id}`);
    expect(again.body.data.account.status).toBe('pending');
  });
});

describe('a squatter registers a storefront shop without a secret; the owner with its secret', () => {
  const platform = STOREFRONT_PLATFORMS[0];
  const shop = `vic-${unique()}.example.test`;
  const shopSecret = platform.newSecret();
  let squatter: Session;
  let owner: Session;

  function deliver(body: string, signature: string | null) {
    const req = request(stack.url)
      .post(platform.path)
      .set('content-type', 'application/json')
      .set(platform.headers.shop, shop)
      .set(platform.headers.topic, platform.topics.orderCreated);
    if (signature) req.set(platform.headers.signature, signature);
    return req.send(body);
  }
  const sign = (body: string, secret: string) =>
    createHmac('sha256', secret).update(body, 'utf8').digest('base64');

  beforeAll(async () => {
    squatter = await tenantSession(stack, database, 'owner');
    owner = await tenantSession(stack, database, 'owner');
    const first = await api(squatter).post('/api/integrations/storefront-connections', {
      platform: platform.provider,
      shop_identifier: shop,
    });
    expect(first.status).toBe(201);
    const second = await api(owner).post('/api/integrations/storefront-connections', {
      platform: platform.provider,
      shop_identifier: shop,
      webhookSecret: shopSecret,
    });
    expect(second.status).toBe(201);
    expect(second.body.data.connection).toMatchObject({
      hasWebhookSecret: true,
      status: 'pending',
    });
  });

  it("an order signed with the shop's real secret is stored for the owner, never the squatter", async () => {
    const order = platform.order();
    const body = JSON.stringify(order);
    const res = await deliver(body, sign(body, shopSecret));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });

    expect(await tenantRows(database, 'commerce_orders', squatter.tenantId)).toEqual([]);
    expect(await tenantRows(database, 'crm_contacts', squatter.tenantId)).toEqual([]);
    const stored = await tenantRows(database, 'commerce_orders', owner.tenantId);
    expect(stored.map((row) => row.external_order_id)).toEqual([String(order.id)]);
    const ledger = (await ledgerRows(database, platform.provider)).filter(
      (row) => row.tenant_id === owner.tenantId,
    );
    expect(ledger).toMatchObject([{ verification: 'verified', outcome: 'processed' }]);

    const list = await api(owner).get('/api/integrations/storefront-connections');
    expect(list.body.items).toMatchObject([{ status: 'proven' }]);
  });

  it('an unsigned order for the shop (the squatter forging one) is held: stored in no tenant', async () => {
    const order = platform.order();
    const res = await deliver(JSON.stringify(order), null);
    expect(res.status).toBe(200);
    expect(await tenantRows(database, 'commerce_orders', squatter.tenantId)).toEqual([]);
    expect(
      (await tenantRows(database, 'commerce_orders', owner.tenantId)).map(
        (row) => row.external_order_id,
      ),
    ).not.toContain(String(order.id));
    const held = (await ledgerRows(database, platform.provider)).filter((row) =>
      row.raw_body?.includes(String(order.id)),
    );
    expect(held).toMatchObject([{ tenant_id: null, outcome: 'held', verification: 'unverified' }]);
    expect(await ledgerIdsVisibleTo(squatter)).not.toContain(held[0].id);
    expect(await ledgerIdsVisibleTo(owner)).not.toContain(held[0].id);
  });

  it("an order signed with a secret of the squatter's choosing is held as well", async () => {
    const order = platform.order();
    const body = JSON.stringify(order);
    const res = await deliver(body, sign(body, 'made-up-secret'));
    expect(res.status).toBe(200);
    expect(await tenantRows(database, 'commerce_orders', squatter.tenantId)).toEqual([]);
    const held = (await ledgerRows(database, platform.provider)).filter((row) =>
      row.raw_body?.includes(String(order.id)),
    );
    expect(held).toMatchObject([{ tenant_id: null, outcome: 'held' }]);
  });
});

describe('a squatter "proves" a shop with a secret of its own choosing', () => {
  const platform = STOREFRONT_PLATFORMS[0];
  const shop = `vic-${unique()}.example.test`;
  const sign = (body: string, secret: string) =>
    createHmac('sha256', secret).update(body, 'utf8').digest('base64');
  const deliver = (body: string, secret: string) =>
    request(stack.url)
      .post(platform.path)
      .set('content-type', 'application/json')
      .set(platform.headers.shop, shop)
      .set(platform.headers.topic, platform.topics.orderCreated)
      .set(platform.headers.signature, sign(body, secret))
      .send(body);

  it("takes only its own forged orders; the shop's real orders still reach the owner", async () => {
    const squatter = await tenantSession(stack, database, 'owner');
    const owner = await tenantSession(stack, database, 'owner');
    const squatterSecret = platform.newSecret();
    const shopSecret = platform.newSecret();
    const connect = (session: Session, webhookSecret: string) =>
      api(session).post('/api/integrations/storefront-connections', {
        platform: platform.provider,
        shop_identifier: shop,
        webhookSecret,
      });
    expect((await connect(squatter, squatterSecret)).status).toBe(201);
    const forged = platform.order();
    expect((await deliver(JSON.stringify(forged), squatterSecret)).status).toBe(200);

    expect((await connect(owner, shopSecret)).status).toBe(201);
    const real = platform.order();
    const res = await deliver(JSON.stringify(real), shopSecret);
    expect(res.status).toBe(200);
    const orderIds = async (session: Session) =>
      (await tenantRows(database, 'commerce_orders', session.tenantId)).map(
        (row) => row.external_order_id,
      );
    expect(await orderIds(owner)).toEqual([String(real.id)]);
    expect(await orderIds(squatter)).toEqual([String(forged.id)]);

    // Signed with neither secret: 401, nothing written, as for a shop with one connection.
    const bad = platform.order();
    expect((await deliver(JSON.stringify(bad), 'made-up-secret')).status).toBe(401);
    expect(
      (await ledgerRows(database, platform.provider)).filter((row) =>
        row.raw_body?.includes(String(bad.id)),
      ),
    ).toEqual([]);
  });
});

describe("registration answers never reveal another tenant's claim", () => {
  const cases = [
    {
      path: '/api/integrations/messaging-accounts',
      body: () => ({ phone_number_id: `pn-${unique()}` }),
    },
    {
      path: '/api/integrations/network-accounts',
      body: () => ({ external_account_id: `acct-${unique()}` }),
    },
    {
      path: '/api/integrations/telephony-numbers',
      body: () => ({ phone_number: `+1415${randomInt(1_000_000, 9_999_999)}` }),
    },
    {
      path: '/api/integrations/storefront-connections',
      body: () => ({ platform: 'storefront_a', shop_identifier: `s-${unique()}.example.test` }),
    },
  ];

  /** An answer with its per-row values (ids, times, tokens, the identifier) blanked. */
  const ROW_VALUES = [
    'id',
    'created_at',
    'verificationUrl',
    'phone_number_id',
    'external_account_id',
    'phone_number',
    'shop_identifier',
  ];
  const shape = (body: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(body, (key, value) => (ROW_VALUES.includes(key) ? '<row>' : value)));

  it.each(cases)(
    '$path: claimed by another tenant -> the same 201 as unclaimed; twice in one tenant -> 409',
    async ({ path, body }) => {
      const other = await tenantSession(stack, database, 'owner');
      const me = await tenantSession(stack, database, 'owner');
      const claimed = body();
      expect((await api(other).post(path, claimed)).status).toBe(201);

      const afterOther = await api(me).post(path, claimed);
      expect(afterOther.status).toBe(201);
      const unclaimed = await api(me).post(path, body());
      expect(unclaimed.status).toBe(201);
      expect(shape(afterOther.body)).toEqual(shape(unclaimed.body));
      expect(JSON.stringify(afterOther.body)).not.toMatch(/another|already/i);

      const twice = await api(me).post(path, claimed);
      expect(twice.status).toBe(409);
      expect(twice.body.code).toBe('ALREADY_EXISTS');
      expect(twice.body.message).toMatch(/is already connected in this workspace$/);
      expect(twice.body.message).not.toMatch(/another/);
    },
  );
});
