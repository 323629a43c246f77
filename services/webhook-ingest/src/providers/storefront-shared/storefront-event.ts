/** The two storefront platforms; also their ledger provider keys. */
export type StorefrontPlatform = 'storefront_a' | 'storefront_b';

/** A customer as both platforms describe one, reduced to what a CRM contact keeps. */
export interface ContactInput {
  /** Lower-cased: contacts are unique per tenant by email. */
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
}

/** An order as both platforms describe one, reduced to the columns of `commerce_orders`. */
export interface OrderInput {
  externalOrderId: string;
  orderNumber: string | null;
  /** Lower-cased. */
  email: string | null;
  /** A decimal string (numeric(16,2) keeps it exactly), or null when the order has none. */
  total: string | null;
  currency: string | null;
  /** Storefront A: financial status; storefront B: order status. */
  status: string | null;
  /** The buyer, when the order names an email to key the contact by. */
  customer: ContactInput | null;
  /** The whole verified body, stored with the order. */
  payload: unknown;
}

/**
 * Which version of a record a body is: the platform's record id and its last-update time, both
 * read from the signed body. Keys the delivery in the ledger (see storefront-receiver.ts).
 */
export interface RecordVersion {
  id: string;
  updatedAt: string;
}

/** What one verified delivery asks of us, read from its topic and body before it is recorded. */
export type StorefrontEvent =
  | { kind: 'order'; order: OrderInput; version: RecordVersion | null }
  | { kind: 'customer'; contact: ContactInput | null; version: RecordVersion | null }
  | { kind: 'ignored'; reason: string };

/** The records a topic is about; any other topic is acknowledged and ignored. */
export type TopicKind = 'order' | 'customer';
