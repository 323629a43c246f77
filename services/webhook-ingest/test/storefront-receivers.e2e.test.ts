import { createPurposeSecretBox, CONNECTION_SECRETS } from '@crm/shared/crypto';
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { createTenant, insertRow, outboxEvents, tenantRows, testDb } from '@crm/test-kit';
import { useReceiverStack } from './support/receiver-stack';
import {
  type Delivery,
  EMPTY_TENANT,
  NOTHING,
  type Shop,
  signStorefront,
  storefrontDeliveries,
} from './support/storefront-deliveries';
import { STOREFRONT_PLATFORMS } from './support/storefront-platforms';

/**
 * POST /api/commerce/webhook/storefront-a and /storefront-b through the real gateway into a
 * real webhook-ingest and Postgres, one suite run for each platform: signed deliveries
 * stored as orders and contacts with their events and ledger row, and every refusal checked
 * to write nothing anywhere. What only one platform does (storefront B's creation ping) is
 * in that platform's own file.
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);
const RECEIVED = { received: true };
const DUPLICATE = { received: true, duplicate: true };
const digest = (body: string) => createHash('sha256').update(body).digest('hex');

describe.each(STOREFRONT_PLATFORMS)('$label', (platform) => {
  const { connectShop, deliver, traces, footprint, connectionLedger } = storefrontDeliveries(
    platform,
    database,
    () => stack.url,
  );
  const { provider, topics } = platform;

  describe('a signed order delivery', () => {
    let shop: Shop;
    let order: Record<string, unknown>;
    let body: string;
    const deliveryId = String(randomInt(1, 2 ** 40));
    beforeAll(async () => {
      shop = await connectShop();
      order = platform.order();
      body = JSON.stringify(order);
    });

    it('200: the order, its buyer as a contact, contact.created then order.created, a verified ledger row', async () => {
      const res = await deliver(shop, { topic: topics.orderCreated, body, deliveryId });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);

      const facts = platform.facts(order);
      const email = facts.email.toLowerCase();
      const contacts = await tenantRows(database, 'crm_contacts', shop.tenantId);
      expect(contacts).toEqual([
        expect.objectContaining({ id: UUID, tenant_id: shop.tenantId, email, ...platform.buyer }),
      ]);
      const orders = await tenantRows(database, 'commerce_orders', shop.tenantId);
      const stored = {
        external_order_id: String(facts.id),
        order_number: facts.orderNumber,
        email,
        contact_id: contacts[0].id,
        total: facts.total,
        currency: facts.currency,
        status: facts.status,
      };
      expect(orders).toEqual([
        expect.objectContaining({
          id: UUID,
          tenant_id: shop.tenantId,
          connection_id: shop.connectionId,
          ...stored,
          payload: order,
        }),
      ]);

      const events = (await outboxEvents(database, shop.tenantId)).map((e) => e.envelope);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'contact.created',
          tenant_id: shop.tenantId,
          record: { module: 'contacts', id: contacts[0].id },
          data: { email, source: provider },
        }),
        expect.objectContaining({
          type: 'order.created',
          tenant_id: shop.tenantId,
          record: { module: 'orders', id: orders[0].id },
          data: { connection_id: shop.connectionId, platform: provider, ...stored },
        }),
      ]);

      expect(await connectionLedger(shop)).toEqual([
        expect.objectContaining({
          tenant_id: shop.tenantId,
          // The order's id and update time (signed), not the unsigned delivery id header.
          delivery_id: `${shop.connectionId}:order:${facts.id}@${facts.updatedAt}`,
          event_type: topics.orderCreated,
          content_type: 'application/json',
          raw_body: body,
          verification: 'verified',
          outcome: 'processed',
          detail: `order ${orders[0].id} created`,
          attempts: 1,
        }),
      ]);
    });

    it('a redelivery with the same delivery id: 200 duplicate, nothing new', async () => {
      const facts = platform.facts(order);
      const keys = { connectionId: shop.connectionId, orderId: facts.id, email: facts.email };
      const before = { traces: await traces(keys), tenant: await footprint(shop.tenantId) };
      expect(before.traces).toEqual({ ledger: 1, orders: 1, contacts: 1, events: 2 });
      const res = await deliver(shop, { topic: topics.orderCreated, body, deliveryId });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(DUPLICATE);
      expect({ traces: await traces(keys), tenant: await footprint(shop.tenantId) }).toEqual(
        before,
      );
    });

    it('a later version of the same order: the row updated in place, order.updated, no new contact', async () => {
      const later = platform.laterVersion(order);
      const res = await deliver(shop, {
        topic: topics.orderUpdated,
        body: JSON.stringify(later.payload),
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);

      const after = await footprint(shop.tenantId);
      expect(after.orders).toEqual([
        expect.objectContaining({
          status: later.status,
          total: later.storedTotal,
          payload: later.payload,
        }),
      ]);
      expect(after.contacts).toHaveLength(1);
      expect(after.events.map((e) => e.type)).toEqual([
        'contact.created',
        'order.created',
        'order.updated',
      ]);
    });
  });

  describe('customer deliveries', () => {
    it('a new customer: a contact and contact.created, no order', async () => {
      const shop = await connectShop();
      const email = `cat+${randomUUID().slice(0, 8)}@example.test`;
      const body = JSON.stringify(
        platform.customer({
          email: email.toUpperCase(),
          firstName: 'Cat',
          lastName: 'Lee',
          addressPhone: '+15550101',
        }),
      );
      const res = await deliver(shop, { topic: topics.customerCreated, body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);

      const after = await footprint(shop.tenantId);
      expect(after.contacts).toEqual([
        expect.objectContaining({ email, first_name: 'Cat', last_name: 'Lee', phone: '+15550101' }),
      ]);
      expect(after.orders).toEqual([]);
      expect(after.events.map((e) => [e.type, (e.envelope as { record: unknown }).record])).toEqual(
        [['contact.created', { module: 'contacts', id: after.contacts[0].id }]],
      );
    });

    it("a customer update fills only a contact's empty fields; no event", async () => {
      const shop = await connectShop();
      const email = `dee+${randomUUID().slice(0, 8)}@example.test`;
      const existing = await insertRow(database, 'crm_contacts', {
        tenant_id: shop.tenantId,
        email,
        first_name: 'Deedee',
        last_name: '',
        phone: null,
      });
      const body = JSON.stringify(
        platform.customer({ email, firstName: 'Dee', lastName: 'Dahl', addressPhone: '+15550102' }),
      );
      const res = await deliver(shop, { topic: topics.customerUpdated, body });
      expect(res.status).toBe(200);

      const after = await footprint(shop.tenantId);
      expect(after.contacts).toEqual([
        expect.objectContaining({
          id: existing.id,
          email,
          first_name: 'Deedee',
          last_name: 'Dahl',
          phone: '+15550102',
        }),
      ]);
      expect(after.events).toEqual([]);
    });

    it('a customer update never overwrites what the contact has; no event', async () => {
      const shop = await connectShop();
      const email = `di+${randomUUID().slice(0, 8)}@example.test`;
      await insertRow(database, 'crm_contacts', {
        tenant_id: shop.tenantId,
        email,
        first_name: 'Diana',
        last_name: 'Dahl',
        phone: '+46700000002',
      });
      const body = JSON.stringify(
        platform.customer({ email, firstName: 'Di', lastName: 'D', addressPhone: '1' }),
      );
      const res = await deliver(shop, { topic: topics.customerUpdated, body });
      expect(res.status).toBe(200);
      const after = await footprint(shop.tenantId);
      expect(after.contacts).toEqual([
        expect.objectContaining({ first_name: 'Diana', last_name: 'Dahl', phone: '+46700000002' }),
      ]);
      expect(after.events).toEqual([]);
    });

    it('a customer without an email: acknowledged and ignored, nothing stored', async () => {
      const shop = await connectShop();
      const res = await deliver(shop, {
        topic: topics.customerCreated,
        body: JSON.stringify(platform.customer({ email: null, firstName: 'Anon' })),
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);
      const after = await footprint(shop.tenantId);
      expect(after.contacts).toEqual([]);
      expect(after.events).toEqual([]);
      expect(after.ledger).toEqual([
        expect.objectContaining({ outcome: 'ignored', detail: 'customer has no email' }),
      ]);
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
      message: `No storefront connection matches the ${platform.headers.shop} header`,
      details: null,
    };
    const NOT_JSON = {
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: 'The request body is not valid JSON',
      details: null,
    };

    async function expectRefused(
      delivery: (keys: { body: string; total: string }) => Delivery,
      status: number,
      expected: object,
      target: Shop = shop,
    ) {
      const order = platform.order();
      const facts = platform.facts(order);
      const res = await deliver(target, {
        deliveryId: randomUUID(),
        ...delivery({ body: JSON.stringify(order), total: facts.total }),
      });
      expect(res.status).toBe(status);
      expect(res.body).toEqual(expected);
      expect(
        await traces({ connectionId: target.connectionId, orderId: facts.id, email: facts.email }),
      ).toEqual(NOTHING);
      expect(await footprint(target.tenantId)).toEqual(EMPTY_TENANT);
    }

    it('a tampered body: 401', async () => {
      await expectRefused(
        ({ body, total }) => ({
          body: body.replace(total, '0.01'),
          signature: signStorefront(body, shop.secret!),
        }),
        401,
        UNAUTHORIZED,
      );
    });

    it('signed with another secret: 401', async () => {
      await expectRefused(
        ({ body }) => ({ body, signature: signStorefront(body, 'not-the-shops-secret') }),
        401,
        UNAUTHORIZED,
      );
    });

    it('no signature header where the connection has a secret: 401', async () => {
      await expectRefused(({ body }) => ({ body, signature: null }), 401, {
        ...UNAUTHORIZED,
        message: `The ${platform.headers.signature} header is required`,
      });
    });

    it("another shop's valid signature (its own secret) does not pass for this shop: 401", async () => {
      const other = await connectShop();
      await expectRefused(
        ({ body }) => ({ body, signature: signStorefront(body, other.secret!) }),
        401,
        UNAUTHORIZED,
      );
    });

    it('an unknown shop: 404', async () => {
      const unknown = platform.shopHeader(platform.newShopIdentifier());
      await expectRefused(({ body }) => ({ body, shop: unknown }), 404, NOT_FOUND);
    });

    it('no shop header: 404', async () => {
      await expectRefused(({ body }) => ({ body, shop: null }), 404, NOT_FOUND);
    });

    it("the other platform's connection with this shop's name is not a shop of this platform: 404", async () => {
      const tenant = await createTenant(database);
      const identifier = platform.newShopIdentifier();
      await insertRow(database, 'storefront_connections', {
        tenant_id: tenant.id,
        platform: platform.otherProvider,
        shop_identifier: identifier,
      });
      await expectRefused(
        ({ body }) => ({ body, shop: platform.shopHeader(identifier) }),
        404,
        NOT_FOUND,
      );
    });

    it('a verified body that is not JSON: 400', async () => {
      await expectRefused(
        () => ({ body: 'id=1&total=2', signature: signStorefront('id=1&total=2', shop.secret!) }),
        400,
        NOT_JSON,
      );
    });

    it('a verified order without an id: 400 naming the field', async () => {
      const body = JSON.stringify({ email: 'x@example.test', total_price: '1.00', total: '1.00' });
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
      const identifier = platform.newShopIdentifier();
      const { id } = await insertRow(database, 'storefront_connections', {
        tenant_id: tenant.id,
        platform: provider,
        shop_identifier: identifier,
        webhook_secret_ciphertext: createPurposeSecretBox(
          'a-different-key-material-0123456789',
          CONNECTION_SECRETS,
        ).seal('s'),
      });
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
        { tenantId: tenant.id, connectionId: id, identifier, secret: 's' },
      );
    });
  });

  describe('a connection without a stored secret', () => {
    it('accepts an unsigned delivery, ledger "unverified", and logs a warning without the body', async () => {
      const shop = await connectShop(null);
      const order = platform.order({ extra: { note: `private-${randomUUID()}` } });
      const facts = platform.facts(order);
      const res = await deliver(shop, { body: JSON.stringify(order) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);

      const after = await footprint(shop.tenantId);
      expect(after.orders).toEqual([
        expect.objectContaining({ external_order_id: String(facts.id) }),
      ]);
      expect(after.ledger).toEqual([
        expect.objectContaining({
          delivery_id: `${shop.connectionId}:order:${facts.id}@${facts.updatedAt}`,
          verification: 'unverified',
          outcome: 'processed',
        }),
      ]);

      const warnings = stack.log
        .lines()
        .filter((line) => line.connectionId === shop.connectionId && line.level === 'warn');
      expect(warnings).toEqual([
        expect.objectContaining({
          receiver: provider,
          tenantId: shop.tenantId,
          msg: 'Storefront delivery accepted unverified: the connection has no webhook secret',
        }),
      ]);
      const log = stack.log.text();
      expect(log).not.toContain(facts.email.toLowerCase());
      expect(log).not.toContain(facts.orderNumber);
      expect(log).not.toContain(order.note as string);
    });
  });

  describe('delivery ids and shop names', () => {
    it('the shop header names the connection in every spelling the platform sends', async () => {
      const shop = await connectShop();
      const variants = platform.shopHeaderVariants(shop.identifier);
      for (const variant of variants) {
        const res = await deliver(shop, { body: JSON.stringify(platform.order()), shop: variant });
        expect(res.status).toBe(200);
      }
      expect((await footprint(shop.tenantId)).orders).toHaveLength(variants.length);
    });

    it('the delivery id header keys nothing: with another one or none, the same order version is a duplicate', async () => {
      const shop = await connectShop();
      const order = platform.order();
      const facts = platform.facts(order);
      const body = JSON.stringify(order);
      const first = await deliver(shop, { body, deliveryId: randomUUID() });
      expect(first.body).toEqual(RECEIVED);
      for (const deliveryId of [randomUUID(), null]) {
        const again = await deliver(shop, { body, deliveryId });
        expect(again.status).toBe(200);
        expect(again.body).toEqual(DUPLICATE);
      }
      expect((await connectionLedger(shop)).map((row) => row.delivery_id)).toEqual([
        `${shop.connectionId}:order:${facts.id}@${facts.updatedAt}`,
      ]);
      expect(await outboxEvents(database, shop.tenantId)).toHaveLength(2);
    });

    it('an order without an update time is keyed by its kind and body digest: the same bytes again are a duplicate', async () => {
      const shop = await connectShop();
      const body = JSON.stringify(platform.withoutVersion(platform.order()));
      expect((await deliver(shop, { body })).body).toEqual(RECEIVED);
      expect((await deliver(shop, { body })).body).toEqual(DUPLICATE);
      expect((await connectionLedger(shop)).map((row) => row.delivery_id)).toEqual([
        `${shop.connectionId}:order:sha256:${digest(body)}`,
      ]);
    });

    it('a topic we do not store: 200, ledger "ignored" keyed by the body digest, nothing else', async () => {
      const shop = await connectShop();
      const [unstored, another] = topics.unstored;
      const body = JSON.stringify({ id: 1, title: 'Lamp', name: 'Mug' });
      const res = await deliver(shop, { topic: unstored, body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);
      // The topic header is not signed either: the same bytes under another topic we do not
      // store are the same delivery.
      const again = await deliver(shop, { topic: another, body });
      expect(again.body).toEqual(DUPLICATE);
      expect(await footprint(shop.tenantId)).toEqual({
        ...EMPTY_TENANT,
        ledger: [
          expect.objectContaining({
            delivery_id: `${shop.connectionId}:sha256:${digest(body)}`,
            tenant_id: shop.tenantId,
            event_type: unstored,
            verification: 'verified',
            outcome: 'ignored',
            detail: `topic ${unstored} not handled`,
          }),
        ],
      });
    });
  });

  describe('awkward but verified payloads are stored, never a 500', () => {
    it('NUL characters, unpaired surrogates, the largest total and a non-ASCII email', async () => {
      const shop = await connectShop();
      const tag = randomUUID().slice(0, 8);
      const order = platform.order({
        email: `ÉLODIE+${tag}@Example.TEST`,
        total: '9999999999999.999',
        firstName: 'Él\u0000odie',
        lastName: null,
        extra: { note: 'gift\u0000wrap \ud800' },
      });
      const res = await deliver(shop, { body: JSON.stringify(order) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(RECEIVED);

      const after = await footprint(shop.tenantId);
      expect(after.orders).toEqual([
        expect.objectContaining({
          email: `élodie+${tag}@example.test`,
          total: '10000000000000.00',
          payload: expect.objectContaining({ note: 'gift\ufffdwrap \ufffd' }),
        }),
      ]);
      expect(after.contacts).toEqual([
        expect.objectContaining({
          email: `élodie+${tag}@example.test`,
          first_name: 'Él\ufffdodie',
        }),
      ]);
    });
  });

  describe('two tenants', () => {
    it("each shop's delivery lands only in its own tenant, even with the same buyer and delivery id", async () => {
      const [north, south] = [await connectShop(), await connectShop()];
      const deliveryId = '1';
      const shared = platform.order();
      const orders = new Map([
        [north, shared],
        [south, { ...shared, id: (shared.id as number) + 1 }],
      ]);
      for (const [shop, order] of orders) {
        const res = await deliver(shop, { body: JSON.stringify(order), deliveryId });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(RECEIVED);
      }
      const email = platform.facts(shared).email.toLowerCase();
      for (const [shop, order] of orders) {
        const facts = platform.facts(order);
        const after = await footprint(shop.tenantId);
        expect(after.orders).toEqual([
          expect.objectContaining({
            connection_id: shop.connectionId,
            external_order_id: String(facts.id),
            order_number: facts.orderNumber,
            contact_id: after.contacts[0].id,
          }),
        ]);
        expect(after.contacts).toEqual([expect.objectContaining({ email })]);
        expect(after.events.map((e) => e.type)).toEqual(['contact.created', 'order.created']);
        expect(after.ledger).toEqual([
          expect.objectContaining({
            delivery_id: `${shop.connectionId}:order:${facts.id}@${facts.updatedAt}`,
          }),
        ]);
      }
      // One contact per tenant for the shared buyer: never one tenant's contact reused.
      expect(await traces({ email })).toMatchObject({ contacts: 2 });
    });
  });
});
