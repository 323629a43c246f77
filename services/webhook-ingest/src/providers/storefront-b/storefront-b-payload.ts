import { z } from 'zod';
import { decimal, email, readShape, text, textOrNumber } from '../storefront-shared/payload-fields';
import { rawRecordId, recordIdText, recordVersion } from '../storefront-shared/record-id';
import type {
  ContactInput,
  OrderInput,
  RecordVersion,
  TopicKind,
} from '../storefront-shared/storefront-event';

/** Storefront B's topics we store; every other topic is acknowledged and ignored. */
export const STOREFRONT_B_TOPICS: ReadonlyMap<string, TopicKind> = new Map([
  ['order.created', 'order'],
  ['order.updated', 'order'],
  ['customer.created', 'customer'],
  ['customer.updated', 'customer'],
]);

/**
 * The source header is the shop's URL, sent with or without a trailing slash; scheme and
 * host are case-insensitive. Connections store it in this form (`https://shop.example`).
 */
export function normaliseSourceUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  const url = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return trimmed;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}`;
}

const billing = z
  .object({ first_name: text(200), last_name: text(200), email, phone: text(100) })
  .nullish();

const orderSchema = z.object({
  id: rawRecordId,
  number: textOrNumber(100),
  status: text(100),
  currency: text(10),
  total: decimal,
  billing,
});

const customerSchema = z.object({
  email,
  first_name: text(200),
  last_name: text(200),
  billing,
});

const versionSchema = z.object({
  id: rawRecordId.nullish(),
  date_modified_gmt: text(100),
  date_modified: text(100),
});

/** An order's or customer's id and modification time (`date_modified_gmt`, else local). */
export function readStorefrontBVersion(payload: unknown): RecordVersion | null {
  const parsed = versionSchema.safeParse(payload);
  if (!parsed.success) return null;
  const { id, date_modified_gmt, date_modified } = parsed.data;
  return recordVersion(id, date_modified_gmt ?? date_modified);
}

/** An order delivery: the order, and its billing contact when it names an email. */
export function readStorefrontBOrder(payload: unknown): OrderInput {
  const order = readShape(orderSchema, payload, 'order');
  const buyerEmail = order.billing?.email ?? null;
  return {
    externalOrderId: recordIdText(order.id),
    orderNumber: order.number,
    email: buyerEmail,
    total: order.total,
    currency: order.currency,
    status: order.status,
    customer:
      buyerEmail && order.billing
        ? {
            email: buyerEmail,
            firstName: order.billing.first_name,
            lastName: order.billing.last_name,
            phone: order.billing.phone,
          }
        : null,
    payload,
  };
}

/** A customer delivery as a contact; null when the customer has no email. */
export function readStorefrontBCustomer(payload: unknown): ContactInput | null {
  const customer = readShape(customerSchema, payload, 'customer');
  const customerEmail = customer.email ?? customer.billing?.email ?? null;
  if (!customerEmail) return null;
  return {
    email: customerEmail,
    firstName: customer.first_name ?? customer.billing?.first_name ?? null,
    lastName: customer.last_name ?? customer.billing?.last_name ?? null,
    phone: customer.billing?.phone ?? null,
  };
}
