import { z } from 'zod';
import { decimal, email, readShape, text, textOrNumber } from '../storefront-shared/payload-fields';
import { rawRecordId, recordIdText, recordVersion } from '../storefront-shared/record-id';
import type {
  ContactInput,
  OrderInput,
  RecordVersion,
  TopicKind,
} from '../storefront-shared/storefront-event';

/** Storefront A's topics we store; every other topic is acknowledged and ignored. */
export const STOREFRONT_A_TOPICS: ReadonlyMap<string, TopicKind> = new Map([
  ['orders/create', 'order'],
  ['orders/updated', 'order'],
  ['orders/paid', 'order'],
  ['customers/create', 'customer'],
  ['customers/update', 'customer'],
]);

/** The shop domain header names the connection; domains are case-insensitive. */
export function normaliseShopDomain(value: string): string {
  return value.trim().toLowerCase();
}

const person = {
  first_name: text(200),
  last_name: text(200),
  phone: text(100),
};
const address = z.object(person).nullish();

const orderSchema = z.object({
  id: rawRecordId,
  /** The same id as text (`gid://<platform>/Order/<id>`), exact where the number is not. */
  admin_graphql_api_id: z.string().max(300).nullish(),
  name: text(100),
  order_number: textOrNumber(100),
  email,
  contact_email: email,
  phone: text(100),
  total_price: decimal,
  currency: text(10),
  financial_status: text(100),
  customer: z.object({ email, ...person }).nullish(),
  billing_address: address,
});

const customerSchema = z.object({ email, ...person, default_address: address });

const GID_ORDER_ID = /^gid:\/\/[^/]+\/Order\/([0-9]{1,30})$/;
const GID_ID = /^gid:\/\/[^/]+\/[A-Za-z]+\/([0-9]{1,30})$/;

const versionSchema = z.object({
  id: rawRecordId.nullish(),
  admin_graphql_api_id: z.string().max(300).nullish(),
  updated_at: text(100),
});

/** An order's or customer's id and `updated_at` (storefront A sends both on each). */
export function readStorefrontAVersion(payload: unknown): RecordVersion | null {
  const parsed = versionSchema.safeParse(payload);
  if (!parsed.success) return null;
  const exactId = GID_ID.exec(parsed.data.admin_graphql_api_id ?? '')?.[1];
  return recordVersion(parsed.data.id, parsed.data.updated_at, exactId);
}

/** An order delivery: the order, and its buyer as a contact when it names an email. */
export function readStorefrontAOrder(payload: unknown): OrderInput {
  const order = readShape(orderSchema, payload, 'order');
  const exactId = GID_ORDER_ID.exec(order.admin_graphql_api_id ?? '')?.[1];
  const buyerEmail = order.email ?? order.contact_email ?? order.customer?.email ?? null;
  return {
    externalOrderId: recordIdText(order.id, exactId),
    orderNumber: order.name ?? order.order_number,
    email: buyerEmail,
    total: order.total_price,
    currency: order.currency,
    status: order.financial_status,
    customer: buyerEmail
      ? {
          email: buyerEmail,
          firstName: order.customer?.first_name ?? order.billing_address?.first_name ?? null,
          lastName: order.customer?.last_name ?? order.billing_address?.last_name ?? null,
          phone: order.customer?.phone ?? order.phone ?? order.billing_address?.phone ?? null,
        }
      : null,
    payload,
  };
}

/** A customer delivery as a contact; null when the customer has no email. */
export function readStorefrontACustomer(payload: unknown): ContactInput | null {
  const customer = readShape(customerSchema, payload, 'customer');
  if (!customer.email) return null;
  return {
    email: customer.email,
    firstName: customer.first_name ?? customer.default_address?.first_name ?? null,
    lastName: customer.last_name ?? customer.default_address?.last_name ?? null,
    phone: customer.phone ?? customer.default_address?.phone ?? null,
  };
}
