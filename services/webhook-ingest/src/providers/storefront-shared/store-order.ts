import { upsertContactFillingBlanks } from '@crm/records';
import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import type { OrderInput, StorefrontPlatform } from './storefront-event';
import { findOrderId, upsertOrder } from './storefront.repository';

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
  const stored = await upsertOrder(trx, connection, order, contact?.id ?? null);
  if (!stored) {
    const id = await findOrderId(trx, connection.connectionId, order.externalOrderId);
    return { id, created: false, changed: false };
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
