import { findContactIdByEmail } from '@crm/records';
import { writeEvent } from '@crm/shared/events';
import { PermanentFailure, type DeliveryScope, type Outcome } from '../../ledger/record-delivery';
import type { NormalizedPayment, PaymentProvider } from './payment-event';
import { insertPaymentEvent } from './payments.repository';

export interface PaymentConnection {
  tenantId: string;
  connectionId: string;
  provider: PaymentProvider;
}

/**
 * Stores one payment activity for the connection's tenant: the `payment_events` row (linked
 * to the tenant's contact with the payer's email, when there is one) and its
 * `payment.succeeded` / `payment.failed` / `payment.refunded` event, in the delivery's
 * transaction. Idempotent on the provider's ids: an event id already stored for the
 * connection, or a payment/refund (`objectId`) already stored for the tenant under another
 * event, writes nothing more and emits nothing. An amount the column cannot hold stores
 * nothing at all: the delivery is recorded as failed for good (PermanentFailure).
 */
export async function handlePayment(
  { asTenant }: DeliveryScope,
  connection: PaymentConnection,
  payment: NormalizedPayment,
  payload: unknown,
): Promise<Outcome> {
  const { tenantId, connectionId, provider } = connection;
  if (payment.unstorableAmount) throw new PermanentFailure(payment.unstorableAmount, tenantId);
  return asTenant(tenantId, async (trx) => {
    const contactId = payment.email
      ? await findContactIdByEmail(trx, tenantId, payment.email)
      : undefined;
    const storedId = await insertPaymentEvent(
      trx,
      { tenantId, connectionId, provider, contactId: contactId ?? null, payload },
      payment,
    );
    if (!storedId) {
      return { outcome: 'ignored', tenantId, detail: 'Payment or payment event already stored' };
    }
    await writeEvent(trx, {
      type: payment.kind,
      tenant_id: tenantId,
      record: { module: 'payments', id: storedId },
      data: {
        provider,
        connection_id: connectionId,
        external_event_id: payment.externalEventId,
        amount: payment.amount,
        currency: payment.currency,
        email: payment.email,
        contact_id: contactId ?? null,
      },
    });
    return {
      outcome: 'processed',
      tenantId,
      detail: [payment.kind, payment.amount, payment.currency].filter(Boolean).join(' '),
    };
  });
}
