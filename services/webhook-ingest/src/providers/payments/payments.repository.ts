/**
 * The payments receiver's SQL: a connection's `payment_events`, written under its tenant's
 * row-level security (the delivery's asTenant scope). The connection itself is found before,
 * in the system scope (tenancy/cross-tenant-lookups.ts).
 */
import type { PaymentProvider, Trx } from '@crm/shared/db';
import type { NormalizedPayment } from './payment-event';

/** Where a payment came in and who paid, beside what the provider said of it. */
export interface PaymentEventOrigin {
  tenantId: string;
  connectionId: string;
  provider: PaymentProvider;
  /** The tenant's contact with the payer's email, when there is one. */
  contactId: string | null;
  /** The delivery's parsed body, stored as it came. */
  payload: unknown;
}

/**
 * Inserts the payment's row; its id, or undefined when either unique key already holds it:
 * (connection_id, external_event_id) or, where there is an object id,
 * (tenant_id, provider, kind, provider_object_id).
 */
export async function insertPaymentEvent(
  trx: Trx,
  origin: PaymentEventOrigin,
  payment: NormalizedPayment,
): Promise<string | undefined> {
  const stored = await trx
    .insertInto('payment_events')
    .values({
      tenant_id: origin.tenantId,
      connection_id: origin.connectionId,
      provider: origin.provider,
      external_event_id: payment.externalEventId,
      provider_object_id: payment.objectId,
      kind: payment.kind,
      amount: payment.amount,
      currency: payment.currency,
      email: payment.email,
      contact_id: origin.contactId,
      // From parseJsonBody: strings and keys already storable, depth bounded.
      payload: JSON.stringify(origin.payload),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return stored?.id;
}
