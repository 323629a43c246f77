import { createHmac, randomUUID } from 'node:crypto';
import { type Db, withSystemScope } from '@crm/shared/db';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  outboxEventsNaming,
  tenantRows,
} from '@crm/test-kit';
import { sql, type RawBuilder } from 'kysely';
import request from 'supertest';
import { testSecretBox } from './receiver-stack';
import type { StorefrontPlatform } from './storefront-platforms';

export interface Shop {
  tenantId: string;
  connectionId: string;
  /** The connection's `shop_identifier`. */
  identifier: string;
  secret: string | null;
}

export interface Delivery {
  topic?: string;
  body: string;
  deliveryId?: string | null;
  /** Default: the platform's shop header for the shop. null: no header. */
  shop?: string | null;
  /** Default: signed with the shop's secret (when it has one). null: no signature header. */
  signature?: string | null;
}

export const signStorefront = (body: string, secret: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('base64');

export const NOTHING = { ledger: 0, orders: 0, contacts: 0, events: 0 };
export const EMPTY_TENANT = { orders: [], contacts: [], events: [], ledger: [] };

/** Connects shops of one platform and sends them deliveries through the test stack. */
export function storefrontDeliveries(
  platform: StorefrontPlatform,
  database: Db,
  stackUrl: () => string,
) {
  /** A tenant with a connection of this platform; `secret: null` stores none. */
  async function connectShop(secret: string | null = platform.newSecret()): Promise<Shop> {
    const tenant = await createTenant(database);
    const identifier = platform.newShopIdentifier();
    const { id } = await insertRow(database, 'storefront_connections', {
      tenant_id: tenant.id,
      platform: platform.provider,
      shop_identifier: identifier,
      webhook_secret_ciphertext: secret === null ? null : testSecretBox().seal(secret),
    });
    return { tenantId: tenant.id, connectionId: id, identifier, secret };
  }

  function deliver(shop: Shop, delivery: Delivery) {
    const { headers: names } = platform;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const shopHeader =
      delivery.shop === undefined ? platform.shopHeader(shop.identifier) : delivery.shop;
    if (shopHeader !== null) headers[names.shop] = shopHeader;
    headers[names.topic] = delivery.topic ?? platform.topics.orderCreated;
    if (delivery.deliveryId !== null) {
      headers[names.deliveryId] = delivery.deliveryId ?? randomUUID();
    }
    const signature =
      delivery.signature === undefined
        ? shop.secret && signStorefront(delivery.body, shop.secret)
        : delivery.signature;
    if (signature) headers[names.signature] = signature;
    return request(stackUrl()).post(platform.path).set(headers).send(delivery.body);
  }

  /**
   * Every trace a delivery could leave, in any tenant: ledger rows of its connection, order
   * rows of its order id, contacts with its email, outbox events naming either. Parallel test
   * files write the same tables, so "nothing written" is checked by these keys, not totals.
   */
  async function traces(keys: { connectionId?: string; orderId?: unknown; email?: string }) {
    const events = await outboxEventsNaming(database, {
      external_order_id: String(keys.orderId ?? ''),
      email: keys.email?.toLowerCase() ?? '',
    });
    return withSystemScope(database.db, async (trx) => {
      const count = async (query: RawBuilder<{ n: string }>) =>
        Number((await query.execute(trx)).rows[0].n);
      return {
        ledger: keys.connectionId
          ? await count(sql<{ n: string }>`SELECT count(*)::text AS n FROM inbound_events
              WHERE provider = ${platform.provider}
                AND delivery_id LIKE ${`${keys.connectionId}:%`}`)
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
        events: events.length,
      };
    });
  }

  /** Everything a tenant holds that a storefront delivery could have written. */
  async function footprint(tenantId: string) {
    return {
      orders: await tenantRows(database, 'commerce_orders', tenantId),
      contacts: await tenantRows(database, 'crm_contacts', tenantId),
      events: await outboxEvents(database, tenantId),
      ledger: (await ledgerRows(database, platform.provider)).filter(
        (row) => row.tenant_id === tenantId,
      ),
    };
  }

  /** The ledger rows of one connection. */
  async function connectionLedger(shop: Shop) {
    return (await ledgerRows(database, platform.provider)).filter((row) =>
      row.delivery_id.startsWith(`${shop.connectionId}:`),
    );
  }

  return { connectShop, deliver, traces, footprint, connectionLedger };
}
