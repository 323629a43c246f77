import { createHmac, randomInt, randomUUID } from 'node:crypto';
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
import { testSecretBox, useReceiverStack } from './support/receiver-stack';

/**
 * POST /api/commerce/webhook/storefront-b through the real gateway into a real
 * webhook-ingest and Postgres: signed deliveries stored as orders and contacts with their
 * events and ledger row, the unsigned creation ping answered without storing anything, and
 * every refusal checked to write nothing anywhere.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

const PATH = '/api/commerce/webhook/storefront-b';
const PROVIDER = 'storefront_b';

interface Shop {
  tenantId: string;
  connectionId: string;
  /** The connection's shop_identifier: the shop URL without a trailing slash. */
  source: string;
  secret: string | null;
}

/** A tenant with a storefront B connection; `secret: null` stores none. */
async function connectShop(secret: string | null = `wc_${randomUUID()}`): Promise<Shop> {
  const tenant = await createTenant(database);
  const source = `https://shop-${randomUUID().slice(0, 8)}.example.test`;
  const { id } = await insertRow(database, 'storefront_connections', {
    tenant_id: tenant.id,
    platform: 'storefront_b',
    shop_identifier: source,
    webhook_secret_ciphertext: secret === null ? null : testSecretBox().seal(secret),
  });
  return { tenantId: tenant.id, connectionId: id, source, secret };
}

const sign = (body: string, secret: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('base64');

interface Delivery {
  topic?: string;
  body: string;
  deliveryId?: string | null;
  /** Default: the shop URL as storefront B sends it, with a trailing slash. null: no header. */
  source?: string | null;
  /** Default: signed with the shop's secret (when it has one). null: no signature header. */
  signature?: string | null;
}

function deliver(shop: Shop, delivery: Delivery) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const source = delivery.source === undefined ? `${shop.source}/` : delivery.source;
  if (source !== null) headers['x-storefront-b-webhook-source'] = source;
  headers['x-storefront-b-webhook-topic'] = delivery.topic ?? 'order.created';
  if (delivery.deliveryId !== null) {
    headers['x-storefront-b-webhook-delivery-id'] = delivery.deliveryId ?? randomUUID();
  }
  const signature =
    delivery.signature === undefined
      ? shop.secret && sign(delivery.body, shop.secret)
      : delivery.signature;
  if (signature) headers['x-storefront-b-webhook-signature'] = signature;
  return request(stack.url).post(PATH).set(headers).send(delivery.body);
}

/** An order as storefront B sends it, with an id and billing email unique to this test. */
function orderPayload(overrides: Record<string, unknown> = {}) {
  const id = randomInt(1, 2 ** 47);
  const tag = randomUUID().slice(0, 8);
  return {
    id,
    number: String(id),
    status: 'processing',
    currency: 'EUR',
    total: '29.35',
    date_modified_gmt: '2024-10-01T14:00:00',
    customer_id: 0,
    billing: {
      first_name: 'Bo',
      last_name: 'Berg',
      email: `Bo.Berg+${tag}@Example.TEST`,
      phone: '+46700000000',
    },
    line_items: [{ name: 'Mug', quantity: 2, total: '29.35' }],
    ...overrides,
  };
}

/**
 * Every trace a delivery could leave, in any tenant (parallel test files write the same
 * tables, so "nothing written" is checked by the delivery's own keys, not by totals).
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

/** Everything a tenant holds that a storefront delivery could have written. */
async function tenantFootprint(tenantId: string) {
  return {
    orders: await tenantRows(database, 'commerce_orders', tenantId),
    contacts: await tenantRows(database, 'crm_contacts', tenantId),
    events: await outboxEvents(database, tenantId),
    ledger: (await ledgerRows(database, PROVIDER)).filter((row) => row.tenant_id === tenantId),
  };
}
const EMPTY_TENANT = { orders: [], contacts: [], events: [], ledger: [] };

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
const RECEIVED = { received: true };
const DUPLICATE = { received: true, duplicate: true };

describe('a signed order delivery', () => {
  let shop: Shop;
  let order: ReturnType<typeof orderPayload>;
  let body: string;
  const deliveryId = String(randomInt(1, 2 ** 40));
  beforeAll(async () => {
    shop = await connectShop();
    order = orderPayload();
    body = JSON.stringify(order);
  });

  it('200: the order, its billing contact, contact.created then order.created, a verified ledger row', async () => {
    const res = await deliver(shop, { topic: 'order.created', body, deliveryId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);

    const email = order.billing.email.toLowerCase();
    const contacts = await tenantRows(database, 'crm_contacts', shop.tenantId);
    expect(contacts).toEqual([
      expect.objectContaining({
        id: UUID,
        tenant_id: shop.tenantId,
        email,
        first_name: 'Bo',
        last_name: 'Berg',
        phone: '+46700000000',
      }),
    ]);
    const orders = await tenantRows(database, 'commerce_orders', shop.tenantId);
    expect(orders).toEqual([
      expect.objectContaining({
        id: UUID,
        tenant_id: shop.tenantId,
        connection_id: shop.connectionId,
        external_order_id: String(order.id),
        order_number: order.number,
        email,
        contact_id: contacts[0].id,
        total: '29.35',
        currency: 'EUR',
        status: 'processing',
        payload: order,
      }),
    ]);

    const events = (await outboxEvents(database, shop.tenantId)).map((e) => e.envelope);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'contact.created',
        tenant_id: shop.tenantId,
        record: { module: 'contacts', id: contacts[0].id },
        data: { email, source: PROVIDER },
      }),
      expect.objectContaining({
        type: 'order.created',
        tenant_id: shop.tenantId,
        record: { module: 'orders', id: orders[0].id },
        data: {
          connection_id: shop.connectionId,
          platform: PROVIDER,
          external_order_id: String(order.id),
          order_number: order.number,
          email,
          contact_id: contacts[0].id,
          total: '29.35',
          currency: 'EUR',
          status: 'processing',
        },
      }),
    ]);

    expect((await tenantFootprint(shop.tenantId)).ledger).toEqual([
      expect.objectContaining({
        // The order's id and date_modified_gmt (signed), not the unsigned delivery id header.
        delivery_id: `${shop.connectionId}:order:${order.id}@${order.date_modified_gmt}`,
        event_type: 'order.created',
        raw_body: body,
        verification: 'verified',
        outcome: 'processed',
        detail: `order ${orders[0].id} created`,
      }),
    ]);
  });

  it('a redelivery of the same delivery id: 200 duplicate, nothing new', async () => {
    const before = await tenantFootprint(shop.tenantId);
    const res = await deliver(shop, { topic: 'order.created', body, deliveryId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DUPLICATE);
    expect(await tenantFootprint(shop.tenantId)).toEqual(before);
  });

  it('order.updated: the same row updated, order.updated, the contact kept', async () => {
    const updated = JSON.stringify({
      ...order,
      status: 'completed',
      date_modified_gmt: '2024-10-01T14:05:00',
    });
    const res = await deliver(shop, { topic: 'order.updated', body: updated });
    expect(res.status).toBe(200);
    const after = await tenantFootprint(shop.tenantId);
    expect(after.orders).toEqual([expect.objectContaining({ status: 'completed' })]);
    expect(after.contacts).toHaveLength(1);
    expect(after.events.map((e) => e.type)).toEqual([
      'contact.created',
      'order.created',
      'order.updated',
    ]);
  });
});

describe('customer deliveries', () => {
  it('customer.created: a contact and contact.created, no order', async () => {
    const shop = await connectShop();
    const email = `cy+${randomUUID().slice(0, 8)}@example.test`;
    const body = JSON.stringify({
      id: 25,
      email,
      first_name: 'Cy',
      last_name: 'Cole',
      billing: { phone: '+46700000001' },
    });
    const res = await deliver(shop, { topic: 'customer.created', body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    const after = await tenantFootprint(shop.tenantId);
    expect(after.contacts).toEqual([
      expect.objectContaining({
        email,
        first_name: 'Cy',
        last_name: 'Cole',
        phone: '+46700000001',
      }),
    ]);
    expect(after.orders).toEqual([]);
    expect(after.events.map((e) => e.type)).toEqual(['contact.created']);
  });

  it('customer.updated never overwrites what the contact has; no event', async () => {
    const shop = await connectShop();
    const email = `di+${randomUUID().slice(0, 8)}@example.test`;
    await insertRow(database, 'crm_contacts', {
      tenant_id: shop.tenantId,
      email,
      first_name: 'Diana',
      last_name: 'Dahl',
      phone: '+46700000002',
    });
    const body = JSON.stringify({
      email,
      first_name: 'Di',
      last_name: 'D',
      billing: { phone: '1' },
    });
    const res = await deliver(shop, { topic: 'customer.updated', body });
    expect(res.status).toBe(200);
    const after = await tenantFootprint(shop.tenantId);
    expect(after.contacts).toEqual([
      expect.objectContaining({ first_name: 'Diana', last_name: 'Dahl', phone: '+46700000002' }),
    ]);
    expect(after.events).toEqual([]);
  });
});

describe('the creation ping', () => {
  const pingBody = () => `webhook_id=${randomInt(1, 2 ** 40)}`;

  async function pingLeavesNoTrace(body: string) {
    const rows = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('inbound_events').select('id').where('raw_body', '=', body).execute(),
    );
    expect(rows).toEqual([]);
  }

  it('unsigned `webhook_id=<id>` without a source: 200 and nothing stored, not even a ledger row', async () => {
    const body = pingBody();
    const res = await request(stack.url)
      .post(PATH)
      .set('content-type', 'application/x-www-form-urlencoded')
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    await pingLeavesNoTrace(body);
  });

  it('with the source of a connection that has a secret: still 200, nothing in that tenant', async () => {
    const shop = await connectShop();
    const body = pingBody();
    const res = await request(stack.url)
      .post(PATH)
      .set('content-type', 'application/x-www-form-urlencoded')
      .set('x-storefront-b-webhook-source', `${shop.source}/`)
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    await pingLeavesNoTrace(body);
    expect(await tenantFootprint(shop.tenantId)).toEqual(EMPTY_TENANT);
  });

  it('a ping-shaped body with a wrong signature is a delivery, and refused: 401', async () => {
    const shop = await connectShop();
    const body = pingBody();
    const res = await deliver(shop, { body, signature: sign(body, 'wrong') });
    expect(res.status).toBe(401);
    await pingLeavesNoTrace(body);
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
  const NOT_FOUND = {
    success: false,
    error: 'Not found',
    code: 'NOT_FOUND',
    message: 'No storefront connection matches the x-storefront-b-webhook-source header',
    details: null,
  };

  async function expectRefused(
    delivery: (keys: { body: string }) => Delivery,
    status: number,
    expected: object,
  ) {
    const order = orderPayload();
    const deliveryId = randomUUID();
    const res = await deliver(shop, { deliveryId, ...delivery({ body: JSON.stringify(order) }) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual(expected);
    expect(
      await traces({
        connectionId: shop.connectionId,
        orderId: order.id,
        email: order.billing.email,
      }),
    ).toEqual(NOTHING);
    expect(await tenantFootprint(shop.tenantId)).toEqual(EMPTY_TENANT);
  }

  it('a tampered body: 401', async () => {
    await expectRefused(
      ({ body }) => ({ body: body.replace('29.35', '0.01'), signature: sign(body, shop.secret!) }),
      401,
      UNAUTHORIZED,
    );
  });

  it('signed with another secret: 401', async () => {
    await expectRefused(
      ({ body }) => ({ body, signature: sign(body, 'wrong') }),
      401,
      UNAUTHORIZED,
    );
  });

  it('no signature header where the connection has a secret: 401', async () => {
    await expectRefused(({ body }) => ({ body, signature: null }), 401, {
      ...UNAUTHORIZED,
      message: 'The x-storefront-b-webhook-signature header is required',
    });
  });

  it('an unknown source: 404', async () => {
    await expectRefused(
      ({ body }) => ({ body, source: 'https://unknown-shop.example.test/' }),
      404,
      NOT_FOUND,
    );
  });

  it('no source header: 404', async () => {
    await expectRefused(({ body }) => ({ body, source: null }), 404, NOT_FOUND);
  });

  it('a verified body that is not JSON: 400', async () => {
    await expectRefused(
      () => ({ body: 'not json', signature: sign('not json', shop.secret!) }),
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
});

describe('a connection without a stored secret', () => {
  it('accepts an unsigned delivery, ledger "unverified", a warning logged', async () => {
    const shop = await connectShop(null);
    const order = orderPayload();
    const res = await deliver(shop, { body: JSON.stringify(order) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    const after = await tenantFootprint(shop.tenantId);
    expect(after.orders).toEqual([
      expect.objectContaining({ external_order_id: String(order.id) }),
    ]);
    expect(after.ledger).toEqual([
      expect.objectContaining({ verification: 'unverified', outcome: 'processed' }),
    ]);
    const warnings = stack.log
      .lines()
      .filter((line) => line.connectionId === shop.connectionId && line.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        receiver: PROVIDER,
        msg: 'Storefront delivery accepted unverified: the connection has no webhook secret',
      }),
    ]);
    expect(stack.log.text()).not.toContain(order.billing.email.toLowerCase());
  });
});

describe('sources, topics and tenants', () => {
  it('the source matches with or without a trailing slash, and in any case of host', async () => {
    const shop = await connectShop();
    for (const source of [shop.source, `${shop.source}//`, shop.source.toUpperCase()]) {
      const res = await deliver(shop, { body: JSON.stringify(orderPayload()), source });
      expect(res.status).toBe(200);
    }
    expect((await tenantFootprint(shop.tenantId)).orders).toHaveLength(3);
  });

  it('a topic we do not store: 200, ledger "ignored", nothing else', async () => {
    const shop = await connectShop();
    const res = await deliver(shop, {
      topic: 'product.created',
      body: JSON.stringify({ id: 5, name: 'Mug' }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(RECEIVED);
    expect(await tenantFootprint(shop.tenantId)).toEqual({
      ...EMPTY_TENANT,
      ledger: [
        expect.objectContaining({
          event_type: 'product.created',
          outcome: 'ignored',
          detail: 'topic product.created not handled',
        }),
      ],
    });
  });

  it("each shop's delivery lands only in its own tenant, even with the same buyer and delivery id", async () => {
    const [east, west] = [await connectShop(), await connectShop()];
    const deliveryId = '1';
    const shared = orderPayload();
    const orders = new Map([
      [east, { ...shared, number: 'E-1' }],
      [west, { ...shared, id: shared.id + 1, number: 'W-1' }],
    ]);
    for (const [shop, order] of orders) {
      const res = await deliver(shop, { body: JSON.stringify(order), deliveryId });
      expect(res.body).toEqual(RECEIVED);
    }
    for (const [shop, order] of orders) {
      const footprint = await tenantFootprint(shop.tenantId);
      expect(footprint.orders).toEqual([
        expect.objectContaining({
          connection_id: shop.connectionId,
          external_order_id: String(order.id),
          order_number: order.number,
          contact_id: footprint.contacts[0].id,
        }),
      ]);
      expect(footprint.contacts).toEqual([
        expect.objectContaining({ email: shared.billing.email.toLowerCase() }),
      ]);
      expect(footprint.events.map((e) => e.type)).toEqual(['contact.created', 'order.created']);
      expect(footprint.ledger).toEqual([
        expect.objectContaining({
          delivery_id: `${shop.connectionId}:order:${order.id}@${order.date_modified_gmt}`,
        }),
      ]);
    }
  });
});
