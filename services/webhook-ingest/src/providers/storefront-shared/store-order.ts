import { upsertContactFillingBlanks } from '@crm/records';
import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import { sql } from 'kysely';
import type { OrderInput, StorefrontPlatform } from './storefront-event';

export interface StoredRecord {
  id: string;
  /** True when this call inserted the row (Postgres: xmax = 0 on a fresh insert). */
  created: boolean;
}

/** Whose order it is: the connection the delivery came through. */
export interface StorefrontConnectionRef {
  tenantId: string;
  connectionId: string;
  platform: StorefrontPlatform;
}

/**
 * Upserts the order by (connection, platform order id), linking its buyer's contact; the
 * latest delivery's values win. Emits `order.created` the first time, `order.updated` when a
 * later delivery changed the row, and nothing when it carries what is stored already (the
 * same order sent again under another key, e.g. re-serialised): `changed` is then false.
 */
export async function storeOrder(
  trx: Trx,
  connection: StorefrontConnectionRef,
  order: OrderInput,
): Promise<StoredRecord & { changed: boolean }> {
  const contact = order.customer
    ? await upsertContactFillingBlanks(
        trx,
        connection.tenantId,
        order.customer,
        connection.platform,
      )
    : null;
  const { rows } = await sql<StoredRecord & { contact_id: string | null; total: string | null }>`
    INSERT INTO commerce_orders AS o
      (tenant_id, connection_id, external_order_id, order_number, email, contact_id, total, currency, status, payload)
    VALUES (${connection.tenantId}, ${connection.connectionId}, ${order.externalOrderId},
      ${order.orderNumber}, ${order.email}, ${contact?.id ?? null}, ${order.total}, ${order.currency},
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
  const stored = rows[0];
  if (!stored) {
    const existing = await trx
      .selectFrom('commerce_orders')
      .select('id')
      .where('connection_id', '=', connection.connectionId)
      .where('external_order_id', '=', order.externalOrderId)
      .executeTakeFirstOrThrow();
    return { id: existing.id, created: false, changed: false };
  }
  await writeEvent(trx, {
    type: stored.created ? 'order.created' : 'order.updated',
    tenant_id: connection.tenantId,
    record: { module: 'orders', id: stored.id },
    data: {
      connection_id: connection.connectionId,
      platform: connection.platform,
      external_order_id: order.externalOrderId,
      order_number: order.orderNumber,
      email: order.email,
      contact_id: stored.contact_id,
      total: stored.total,
      currency: order.currency,
      status: order.status,
    },
  });
  return { id: stored.id, created: stored.created, changed: true };
}
