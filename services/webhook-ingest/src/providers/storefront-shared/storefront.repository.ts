/**
 * The storefront receivers' SQL: a connection's `commerce_orders`, written under its tenant's
 * row-level security (the delivery's asTenant scope). The buyer's contact is the shared
 * records' (`@crm/records`); the connection is found before, in the system scope
 * (tenancy/cross-tenant-lookups.ts).
 */
import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';
import type { OrderInput } from './storefront-event';

/** The order row as this upsert left it. */
export interface UpsertedOrder {
  id: string;
  /** True when this call inserted the row (Postgres: xmax = 0 on a fresh insert). */
  created: boolean;
  contact_id: string | null;
  total: string | null;
}

/**
 * Upserts the order by (connection, platform order id); the latest delivery's values win and
 * a stored contact link is kept when this delivery names no contact. Undefined when the row
 * already holds every value: nothing is written then (not even `updated_at`).
 */
export async function upsertOrder(
  trx: Trx,
  { tenantId, connectionId }: { tenantId: string; connectionId: string },
  order: OrderInput,
  contactId: string | null,
): Promise<UpsertedOrder | undefined> {
  const { rows } = await sql<UpsertedOrder>`
    INSERT INTO commerce_orders AS o
      (tenant_id, connection_id, external_order_id, order_number, email, contact_id, total, currency, status, payload)
    VALUES (${tenantId}, ${connectionId}, ${order.externalOrderId},
      ${order.orderNumber}, ${order.email}, ${contactId}, ${order.total}, ${order.currency},
      ${order.status}, ${JSON.stringify(order.payload)}::jsonb)
    ON CONFLICT (connection_id, external_order_id) DO UPDATE SET
      order_number = EXCLUDED.order_number,
      email = EXCLUDED.email,
      contact_id = COALESCE(EXCLUDED.contact_id, o.contact_id),
      total = EXCLUDED.total,
      currency = EXCLUDED.currency,
      status = EXCLUDED.status,
      payload = EXCLUDED.payload,
      updated_at = now()
    WHERE (o.order_number, o.email, o.contact_id, o.total, o.currency, o.status, o.payload)
      IS DISTINCT FROM (EXCLUDED.order_number, EXCLUDED.email,
        COALESCE(EXCLUDED.contact_id, o.contact_id), EXCLUDED.total, EXCLUDED.currency,
        EXCLUDED.status, EXCLUDED.payload)
    RETURNING id, contact_id, total, (xmax = 0) AS created`.execute(trx);
  return rows[0];
}

/** The id of the connection's stored order with this platform order id (it must exist). */
export async function findOrderId(
  trx: Trx,
  connectionId: string,
  externalOrderId: string,
): Promise<string> {
  const existing = await trx
    .selectFrom('commerce_orders')
    .select('id')
    .where('connection_id', '=', connectionId)
    .where('external_order_id', '=', externalOrderId)
    .executeTakeFirstOrThrow();
  return existing.id;
}
