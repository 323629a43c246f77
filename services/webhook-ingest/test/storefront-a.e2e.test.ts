import { createHash, createHmac, randomInt, randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  tenantRows,
  testDb,
} from '@crm/test-kit';
import { sql, type RawBuilder } from 'kysely';
import request from 'supertest';
import { createSecretBox } from '../src/secrets/secret-box';
import { testSecretBox, useReceiverStack } from './support/receiver-stack';

/**
 * POST /api/commerce/webhook/storefront-a through the real gateway into a real
 * webhook-ingest and Postgres: signed deliveries stored as orders and contacts with their
 * events and ledger row; every refusal checked to write nothing anywhere.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

const PATH = '/api/commerce/webhook/storefront-a';
const PROVIDER = 'storefront_a';

interface Shop {
  tenantId: string;
  connectionId: string;
  domain: string;
  secret: string | null;
}

/** A tenant with a storefront A connection; `secret: null` stores none. */
async function connectShop(secret: string | null = `shpss_${randomUUID()}`): Promise<Shop> {
  const tenant = await createTenant(database);
  const domain = `shop-${randomUUID().slice(0, 8)}.example.test`;
  const { id } = await insertRow(database, 'storefront_connections', {
    tenant_id: tenant.id,
    platform: 'storefront_a',
    shop_identifier: domain,
    webhook_secret_ciphertext: secret === null ? null : testSecretBox().seal(secret),
  });
  return { tenantId: tenant.id, connectionId: id, domain, secret };
}

const sign = (body: string, secret: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('base64');

interface Delivery {
  topic?: string;
  body: string;
  webhookId?: string | null;
  domain?: string | null;
  /** Default: signed with the shop's secret (when it has one). null: no signature header. */
  signature?: string | null;
}

function deliver(shop: Shop, delivery: Delivery) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const domain = delivery.domain === undefined ? shop.domain : delivery.domain;
  if (domain !== null) headers['x-storefront-a-shop-domain'] = domain;
  headers['x-storefront-a-topic'] = delivery.topic ?? 'orders/create';
  if (delivery.webhookId !== null) {
    headers['x-storefront-a-webhook-id'] = delivery.webhookId ?? randomUUID();
  }
  const signature =
    delivery.signature === undefined
      ? shop.secret && sign(delivery.body, shop.secret)
      : delivery.signature;
  if (signature) headers['x-storefront-a-hmac-sha256'] = signature;
  return request(stack.url).post(PATH).set(headers).send(delivery.body);
}

/** An order as storefront A sends it, with an id and buyer email unique to this test. */
function orderPayload(overrides: Record<string, unknown> = {}) {
  const id = randomInt(1, 2 ** 47);
  const tag = randomUUID().slice(0, 8);
  return {
    id,
    admin_graphql_api_id: `gid://storefront-a/Order/${id}`,
    name: `#${tag}`,
    order_number: 1001,
    email: `Ann.Buyer+${tag}@Example.TEST`,
    total_price: '403.50',
    currency: 'USD',
    financial_status: 'pending',
    updated_at: '2024-10-01T10:00:00-04:00',
    customer: {
      id: 7,
      email: `ann.buyer+${tag}@example.test`,
      first_name: 'Ann',
      last_name: 'Buyer',
      phone: '+15550100',
    },
    line_items: [{ title: 'Lamp', quantity: 1, price: '403.50' }],
    ...overrides,
  };
}

/**
 * Every trace a delivery could leave, in any tenant: ledger rows of its connection, order
 * rows of its order id, contacts with its email, outbox events naming either. Parallel test
 * files write the same tables, so "nothing written" is checked by these keys, not by totals.
 */
async function traces(keys: { connectionId?: string; orderId?: unknown; email?: string }) {
  return withSystemScope(database.db, async (trx) => {
    const count = async (query: RawBuilder<{ n: string }>) =>
      Number((await query.execute(trx)).rows[0].n);
    return {
      ledger: keys.connectionId
        ? await count(sql<{ n: string }>`SELECT count(*)::text AS n FROM inbound_events
            WHERE provider = ${PROVIDER} AND delivery_id LIKE ${`${keys.connectionId}:%`}`)
        : 0,
      orders:
        keys.orderId === undefined
          ? 0
          : await count(sql<{ n: string }>`SELECT count(*)::text AS n FROM commerce_orders
              WHERE external_order_id = ${String(keys.orderId)}`),
      contacts: keys.email
        ? await count(sql<{ n: string }>`SELECT count(*)::text AS n FROM crm_contacts
            WHERE email = ${keys.email.toLowerCase()}`)
        : 0,
      events: await count(sql<{ n: string }>`SELECT count(*)::text AS n FROM event_outbox
          WHERE envelope->'data'->>'external_order_id' = ${String(keys.orderId ?? '')}
             OR envelope->'data'->>'email' = ${keys.email?.toLowerCase() ?? ''}`),
    };
  });
}
const NOTHING = { ledger: 0, orders: 0, contacts: 0, events: 0 };

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
const RECEIVED = { received: true };
const DUPLICATE = { received: true, duplicate: true };

describe('a signed order delivery', () => {
  let shop: Shop;
  let order: ReturnType<typeof orderPayload>;
  let body: string;
  const webhookId = randomUUID();
  beforeAll(async () => {
    shop = await connectShop();
    order = orderPayload();
    body = JSON.stringify(order);
  });

  it('200: the order, its buyer as a contact, contact.created then order.created, a verified ledger row', async () => {
    const res = await deliver(shop, { topic: 'orders/create', body, webhookId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const contacts = await tenantRows(database, 'crm_contacts', shop.tenantId);
    expect(contacts).toEqual([
      expect.objectContaining({
        id: UUID,
        tenant_id: shop.tenantId,
        email: order.email.toLowerCase(),
        first_name: 'Ann',
        last_name: 'Buyer',
        phone: '+15550100',
      }),
    ]);
    const orders = await tenantRows(database, 'commerce_orders', shop.tenantId);
    expect(orders).toEqual([
      expect.objectContaining({
        id: UUID,
        tenant_id: shop.tenantId,
        connection_id: shop.connectionId,
        external_order_id: String(order.id),
        order_number: order.name,
        email: order.email.toLowerCase(),
        contact_id: contacts[0].id,
        total: '403.50',
        currency: 'USD',
        status: 'pending',
        payload: order,
      }),
    ]);

    const events = (await outboxEvents(database, shop.tenantId)).map((e) => e.envelope);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'contact.created',
        tenant_id: shop.tenantId,
        record: { module: 'contacts', id: contacts[0].id },
        data: { email: order.email.toLowerCase(), source: PROVIDER },
      }),
      expect.objectContaining({
        type: 'order.created',
        tenant_id: shop.tenantId,
        record: { module: 'orders', id: orders[0].id },
        data: {
          connection_id: shop.connectionId,
          platform: PROVIDER,
          external_order_id: String(order.id),
          order_number: order.name,
          email: order.email.toLowerCase(),
          contact_id: contacts[0].id,
          total: '403.50',
          currency: 'USD',
          status: 'pending',
        },
      }),
    ]);

    const ledger = (await ledgerRows(database, PROVIDER)).filter((row) =>
      row.delivery_id.startsWith(`${shop.connectionId}:`),
    );
    expect(ledger).toEqual([
      expect.objectContaining({
        tenant_id: shop.tenantId,
        // The order's id and updated_at (signed), not the unsigned webhook id header.
        delivery_id: `${shop.connectionId}:order:${order.id}@${order.updated_at}`,
        event_type: 'orders/create',
        content_type: 'application/json',
        raw_body: body,
        verification: 'verified',
        outcome: 'processed',
        detail: `order ${orders[0].id} created`,
        attempts: 1,
      }),
    ]);
  });

  it('a redelivery of the same webhook id: 200 duplicate, nothing new', async () => {
    const keys = { connectionId: shop.connectionId, orderId: order.id, email: order.email };
    const before = await traces(keys);
    expect(before).toEqual({ ledger: 1, orders: 1, contacts: 1, events: 2 });
    const res = await deliver(shop, { topic: 'orders/create', body, webhookId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DUPLICATE);
    expect(await traces(keys)).toEqual(before);
  });

  it('orders/paid for the same order: the row is updated in place, order.updated, no new contact', async () => {
    const paid = JSON.stringify({
      ...order,
      financial_status: 'paid',
      total_price: '410',
      updated_at: '2024-10-01T10:05:00-04:00',
    });
    const res = await deliver(shop, { topic: 'orders/paid', body: paid });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const orders = await tenantRows(database, 'commerce_orders', shop.tenantId);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ status: 'paid', total: '410.00', payload: JSON.parse(paid) });
    expect(await tenantRows(database, 'crm_contacts', shop.tenantId)).toHaveLength(1);
    const types = (await outboxEvents(database, shop.tenantId)).map((e) => e.type);
    expect(types).toEqual(['contact.created', 'order.created', 'order.updated']);
  });
});

describe('customer deliveries', () => {
  it('customers/create: a contact and contact.created, no order', async () => {
    const shop = await connectShop();
    const email = `cat+${randomUUID().slice(0, 8)}@example.test`;
    const body = JSON.stringify({
      id: 42,
      email: email.toUpperCase(),
      first_name: 'Cat',
      last_name: 'Lee',
      phone: null,
      default_address: { phone: '+15550101' },
    });
    const res = await deliver(shop, { topic: 'customers/create', body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const contacts = await tenantRows(database, 'crm_contacts', shop.tenantId);
    expect(contacts).toEqual([
      expect.objectContaining({ email, first_name: 'Cat', last_name: 'Lee', phone: '+15550101' }),
    ]);
    expect(await tenantRows(database, 'commerce_orders', shop.tenantId)).toEqual([]);
    const events = await outboxEvents(database, shop.tenantId);
    expect(events.map((e) => [e.type, (e.envelope as { record: unknown }).record])).toEqual([
      ['contact.created', { module: 'contacts', id: contacts[0].id }],
    ]);
  });

  it("customers/update fills only a contact's empty fields and never overwrites; no event", async () => {
    const shop = await connectShop();
    const email = `dee+${randomUUID().slice(0, 8)}@example.test`;
    const existing = await insertRow(database, 'crm_contacts', {
      tenant_id: shop.tenantId,
      email,
      first_name: 'Deedee',
      last_name: '',
      phone: null,
    });
    const body = JSON.stringify({
      email,
      first_name: 'Dee',
      last_name: 'Dahl',
      phone: '+15550102',
    });
    const res = await deliver(shop, { topic: 'customers/update', body });
    expect(res.status).toBe(200);

    expect(await tenantRows(database, 'crm_contacts', shop.tenantId)).toEqual([
      expect.objectContaining({
        id: existing.id,
        email,
        first_name: 'Deedee',
        last_name: 'Dahl',
        phone: '+15550102',
      }),
    ]);
    expect(await outboxEvents(database, shop.tenantId)).toEqual([]);
  });

  it('a customer without an email: acknowledged and ignored, nothing stored', async () => {
    const shop = await connectShop();
    const webhookId = randomUUID();
    const res = await deliver(shop, {
      topic: 'customers/create',
      body: JSON.stringify({ id: 9, email: null, first_name: 'Anon' }),
      webhookId,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    expect(await tenantRows(database, 'crm_contacts', shop.tenantId)).toEqual([]);
    const [ledger] = await ledgerRows(database, PROVIDER).then((rows) =>
      rows.filter((row) => row.delivery_id.startsWith(`${shop.connectionId}:`)),
    );
    expect(ledger).toMatchObject({ outcome: 'ignored', detail: 'customer has no email' });
  });
});

describe('refused deliveries write nothing', () => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await connectShop();
  });

  const UNAUTHORIZED = {
    success: false,
    error: 'Invalid signature',
    code: 'UNAUTHORIZED',
    message: 'The signature does not match the request body',
    details: null,
  };

  async function expectRefused(
    delivery: (keys: { body: string; webhookId: string }) => Delivery,
    status: number,
    expected: object,
    target: Shop = shop,
  ) {
    const order = orderPayload();
    const keys = { body: JSON.stringify(order), webhookId: randomUUID() };
    const res = await deliver(target, { webhookId: keys.webhookId, ...delivery(keys) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual(expected);
    expect(
      await traces({ connectionId: target.connectionId, orderId: order.id, email: order.email }),
    ).toEqual(NOTHING);
    expect(await tenantRows(database, 'commerce_orders', target.tenantId)).toEqual([]);
  }

  it('a tampered body: 401', async () => {
    await expectRefused(
      ({ body }) => ({
        body: body.replace('403.50', '0.01'),
        signature: sign(body, shop.secret!),
      }),
      401,
      UNAUTHORIZED,
    );
  });

  it('signed with another secret: 401', async () => {
    await expectRefused(
      ({ body }) => ({ body, signature: sign(body, 'not-the-shops-secret') }),
      401,
      UNAUTHORIZED,
    );
  });

  it('no signature header where the connection has a secret: 401', async () => {
    await expectRefused(({ body }) => ({ body, signature: null }), 401, {
      ...UNAUTHORIZED,
      message: 'The x-storefront-a-hmac-sha256 header is required',
    });
  });

  it("another shop's valid signature (its own secret) does not pass for this shop: 401", async () => {
    const other = await connectShop();
    await expectRefused(
      ({ body }) => ({ body, signature: sign(body, other.secret!) }),
      401,
      UNAUTHORIZED,
    );
  });

  const NOT_FOUND = {
    success: false,
    error: 'Not found',
    code: 'NOT_FOUND',
    message: 'No storefront connection matches the x-storefront-a-shop-domain header',
    details: null,
  };

  it('an unknown shop domain: 404', async () => {
    await expectRefused(
      ({ body }) => ({ body, domain: 'unknown-shop.example.test' }),
      404,
      NOT_FOUND,
    );
  });

  it('no shop domain header: 404', async () => {
    await expectRefused(({ body }) => ({ body, domain: null }), 404, NOT_FOUND);
  });

  it("a storefront B connection's source is not a storefront A shop: 404", async () => {
    const tenant = await createTenant(database);
    const identifier = `shop-b-${randomUUID().slice(0, 8)}.example.test`;
    await insertRow(database, 'storefront_connections', {
      tenant_id: tenant.id,
      platform: 'storefront_b',
      shop_identifier: identifier,
    });
    await expectRefused(({ body }) => ({ body, domain: identifier }), 404, NOT_FOUND);
  });

  it('a verified body that is not JSON: 400', async () => {
    await expectRefused(
      () => ({ body: 'id=1&total=2', signature: sign('id=1&total=2', shop.secret!) }),
      400,
      {
        success: false,
        error: 'Webhook processing failed',
        code: 'INVALID_REQUEST',
        message: 'The request body is not valid JSON',
        details: null,
      },
    );
  });

  it('a verified order without an id: 400 naming the field', async () => {
    const body = JSON.stringify({ email: 'x@example.test', total_price: '1.00' });
    await expectRefused(() => ({ body }), 400, {
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: 'The order payload does not have the expected shape',
      details: { issues: [{ path: 'id', message: expect.any(String) }] },
    });
  });

  it('a secret that no longer opens (sealed under another key): 503, not accepted unverified', async () => {
    const tenant = await createTenant(database);
    const domain = `shop-${randomUUID().slice(0, 8)}.example.test`;
    const { id } = await insertRow(database, 'storefront_connections', {
      tenant_id: tenant.id,
      platform: 'storefront_a',
      shop_identifier: domain,
      webhook_secret_ciphertext: createSecretBox('a-different-key-material-0123456789').seal('s'),
    });
    const target = { tenantId: tenant.id, connectionId: id, domain, secret: 's' };
    await expectRefused(
      ({ body }) => ({ body }),
      503,
      {
        success: false,
        error: 'Webhook secret unavailable',
        code: 'SERVICE_UNAVAILABLE',
        message: 'The webhook secret stored for this connection cannot be read',
        details: null,
      },
      target,
    );
  });
});

describe('a connection without a stored secret', () => {
  it('accepts an unsigned delivery, ledger "unverified", and logs a warning without the body', async () => {
    const shop = await connectShop(null);
    const order = orderPayload();
    const webhookId = randomUUID();
    const res = await deliver(shop, { body: JSON.stringify(order), webhookId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    expect(await tenantRows(database, 'commerce_orders', shop.tenantId)).toEqual([
      expect.objectContaining({ external_order_id: String(order.id) }),
    ]);
    const [ledger] = (await ledgerRows(database, PROVIDER)).filter(
      (row) => row.delivery_id === `${shop.connectionId}:order:${order.id}@${order.updated_at}`,
    );
    expect(ledger).toMatchObject({ verification: 'unverified', outcome: 'processed' });

    const warnings = stack.log
      .lines()
      .filter((line) => line.connectionId === shop.connectionId && line.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        receiver: PROVIDER,
        tenantId: shop.tenantId,
        msg: 'Storefront delivery accepted unverified: the connection has no webhook secret',
      }),
    ]);
    expect(stack.log.text()).not.toContain(order.email.toLowerCase());
    expect(stack.log.text()).not.toContain(order.name);
  });
});

describe('delivery ids and shop domains', () => {
  it('the shop domain header is matched case-insensitively', async () => {
    const shop = await connectShop();
    const order = orderPayload();
    const res = await deliver(shop, {
      body: JSON.stringify(order),
      domain: shop.domain.toUpperCase(),
    });
    expect(res.status).toBe(200);
    expect(await tenantRows(database, 'commerce_orders', shop.tenantId)).toHaveLength(1);
  });

  it('the webhook id header keys nothing: with another one or none, the same order version is a duplicate', async () => {
    const shop = await connectShop();
    const order = orderPayload();
    const body = JSON.stringify(order);
    const first = await deliver(shop, { body, webhookId: randomUUID() });
    expect(first.body).toEqual(RECEIVED);
    for (const webhookId of [randomUUID(), null]) {
      const again = await deliver(shop, { body, webhookId });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(DUPLICATE);
    }
    const ledger = (await ledgerRows(database, PROVIDER)).filter((row) =>
      row.delivery_id.startsWith(`${shop.connectionId}:`),
    );
    expect(ledger.map((row) => row.delivery_id)).toEqual([
      `${shop.connectionId}:order:${order.id}@${order.updated_at}`,
    ]);
    expect(await outboxEvents(database, shop.tenantId)).toHaveLength(2);
  });

  it('an order without updated_at is keyed by its kind and body digest: the same bytes again are a duplicate', async () => {
    const shop = await connectShop();
    const { updated_at: _updatedAt, ...undated } = orderPayload();
    const body = JSON.stringify(undated);
    expect((await deliver(shop, { body })).body).toEqual(RECEIVED);
    expect((await deliver(shop, { body })).body).toEqual(DUPLICATE);
    const ledger = (await ledgerRows(database, PROVIDER)).filter((row) =>
      row.delivery_id.startsWith(`${shop.connectionId}:`),
    );
    expect(ledger.map((row) => row.delivery_id)).toEqual([
      `${shop.connectionId}:order:sha256:${createHash('sha256').update(body).digest('hex')}`,
    ]);
  });

  it('a topic we do not store: 200, ledger "ignored" keyed by the body digest, nothing else', async () => {
    const shop = await connectShop();
    const body = JSON.stringify({ id: 1, title: 'Lamp' });
    const res = await deliver(shop, { topic: 'products/create', body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    // The topic header is not signed either: the same bytes under another topic we do not
    // store are the same delivery.
    const again = await deliver(shop, { topic: 'products/update', body });
    expect(again.body).toEqual(DUPLICATE);
    const [ledger, ...more] = (await ledgerRows(database, PROVIDER)).filter((row) =>
      row.delivery_id.startsWith(`${shop.connectionId}:`),
    );
    expect(more).toEqual([]);
    expect(ledger).toMatchObject({
      delivery_id: `${shop.connectionId}:sha256:${createHash('sha256').update(body).digest('hex')}`,
      tenant_id: shop.tenantId,
      event_type: 'products/create',
      verification: 'verified',
      outcome: 'ignored',
      detail: 'topic products/create not handled',
    });
    expect(await outboxEvents(database, shop.tenantId)).toEqual([]);
  });
});

describe('awkward but verified payloads are stored, never a 500', () => {
  it('NUL characters, unpaired surrogates, the largest total and a non-ASCII email', async () => {
    const shop = await connectShop();
    const tag = randomUUID().slice(0, 8);
    const order = orderPayload({
      email: `ÉLODIE+${tag}@Example.TEST`,
      total_price: '9999999999999.999',
      note: 'gift\u0000wrap \ud800',
      customer: { first_name: 'Él\u0000odie', last_name: null },
    });
    const res = await deliver(shop, { body: JSON.stringify(order) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const [stored] = await tenantRows(database, 'commerce_orders', shop.tenantId);
    expect(stored).toMatchObject({
      email: `élodie+${tag}@example.test`,
      total: '10000000000000.00',
      payload: expect.objectContaining({ note: 'gift\ufffdwrap \ufffd' }),
    });
    expect(await tenantRows(database, 'crm_contacts', shop.tenantId)).toEqual([
      expect.objectContaining({ email: `élodie+${tag}@example.test`, first_name: 'Él\ufffdodie' }),
    ]);
  });
});

describe('two tenants', () => {
  it("each shop's delivery lands only in its own tenant, even with the same buyer and webhook id", async () => {
    const [north, south] = [await connectShop(), await connectShop()];
    const webhookId = randomUUID();
    const shared = orderPayload();
    const forNorth = { ...shared, id: shared.id, name: '#N-1' };
    const forSouth = { ...shared, id: shared.id + 1, name: '#S-1' };

    for (const [shop, order] of [
      [north, forNorth],
      [south, forSouth],
    ] as const) {
      const res = await deliver(shop, { body: JSON.stringify(order), webhookId });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);
    }

    for (const [shop, order] of [
      [north, forNorth],
      [south, forSouth],
    ] as const) {
      const orders = await tenantRows(database, 'commerce_orders', shop.tenantId);
      expect(orders).toEqual([
        expect.objectContaining({
          connection_id: shop.connectionId,
          external_order_id: String(order.id),
          order_number: order.name,
        }),
      ]);
      const contacts = await tenantRows(database, 'crm_contacts', shop.tenantId);
      expect(contacts).toEqual([expect.objectContaining({ email: shared.email.toLowerCase() })]);
      expect(orders[0].contact_id).toBe(contacts[0].id);
      const events = await outboxEvents(database, shop.tenantId);
      expect(events.map((e) => e.type)).toEqual(['contact.created', 'order.created']);
      expect(
        (await ledgerRows(database, PROVIDER)).filter((row) => row.tenant_id === shop.tenantId),
      ).toEqual([
        expect.objectContaining({
          delivery_id: `${shop.connectionId}:order:${order.id}@${order.updated_at}`,
        }),
      ]);
    }
    // One contact per tenant for the shared buyer: never one tenant's contact reused.
    expect(await traces({ email: shared.email })).toMatchObject({ contacts: 2 });
  });
});
