import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import { sql } from 'kysely';
import type { ContactInput, OrderInput, StorefrontPlatform } from './storefront-event';

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
 * Upserts the contact by (tenant, lower-cased email). An existing contact only gains the
 * fields it lacks: what the CRM's users typed is never overwritten by a storefront's copy.
 * A new contact gets a `contact.created` event. Runs as the tenant (inside asTenant).
 */
export async function upsertContact(
  trx: Trx,
  connection: StorefrontConnectionRef,
  contact: ContactInput,
): Promise<StoredRecord> {
  // lower() again in SQL: the table's CHECK (email = lower(email)) is Postgres's idea of
  // lower case, which for a few non-ASCII letters is not JavaScript's.
  const { rows } = await sql<StoredRecord>`
    INSERT INTO crm_contacts AS c (tenant_id, email, first_name, last_name, phone)
    VALUES (${connection.tenantId}, lower(${contact.email}), ${contact.firstName}, ${contact.lastName}, ${contact.phone})
    ON CONFLICT (tenant_id, email) WHERE email IS NOT NULL DO UPDATE SET
      first_name = COALESCE(NULLIF(c.first_name, ''), EXCLUDED.first_name, c.first_name),
      last_name = COALESCE(NULLIF(c.last_name, ''), EXCLUDED.last_name, c.last_name),
      phone = COALESCE(NULLIF(c.phone, ''), EXCLUDED.phone, c.phone),
      updated_at = CASE
        WHEN (NULLIF(c.first_name, '') IS NULL AND EXCLUDED.first_name IS NOT NULL)
          OR (NULLIF(c.last_name, '') IS NULL AND EXCLUDED.last_name IS NOT NULL)
          OR (NULLIF(c.phone, '') IS NULL AND EXCLUDED.phone IS NOT NULL)
        THEN now() ELSE c.updated_at END
    RETURNING id, (xmax = 0) AS created`.execute(trx);
  const stored = rows[0];
  if (stored.created) {
    await writeEvent(trx, {
      type: 'contact.created',
      tenant_id: connection.tenantId,
      record: { module: 'contacts', id: stored.id },
      data: { email: contact.email, source: connection.platform },
    });
  }
  return stored;
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
  const contact = order.customer ? await upsertContact(trx, connection, order.customer) : null;
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
