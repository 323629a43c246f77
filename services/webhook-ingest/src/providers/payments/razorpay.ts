import { bodyDigestId, unprocessable, verifyBodyHmac } from '@crm/shared/inbound';
import { amountFields } from './amounts';
import { at, currencyCode, emailAddress, text } from './payments-payload';
import type { PaymentKind, PaymentProviderModule } from './payment-event';

export const RAZORPAY_SIGNATURE_HEADER = 'X-Razorpay-Signature';

const KINDS: Record<string, PaymentKind> = {
  'payment.captured': 'payment.succeeded',
  'payment.failed': 'payment.failed',
  'refund.processed': 'payment.refunded',
};

/** Razorpay: hex HMAC-SHA256 of the raw body in X-Razorpay-Signature. */
export const razorpay: PaymentProviderModule = {
  verify(rawBody, headers, secret) {
    return verifyBodyHmac(
      { header: RAZORPAY_SIGNATURE_HEADER, encoding: 'hex' },
      rawBody,
      headers,
      secret,
    );
  },

  /**
   * The event's id travels only in the x-razorpay-event-id header, which the signature does
   * not cover (re-sending a signed body with another id there must not record it twice), so
   * the event is keyed by what the signed body says: `<event>:<entity id>:<created_at>`, the
   * entity being the payment or refund (else the first one `contains` names); a body without
   * both is keyed by its digest. Payments and refunds arrive as `payload.<entity>.entity`,
   * amounts in minor units (paise). A payment id is one payment attempt and a refund id one
   * refund, so each is stored once per kind.
   */
  normalize(body, rawBody) {
    const eventType = text(at(body, 'event'));
    if (!eventType) throw unprocessable('The body is not a Razorpay event (event required)');
    const kind = KINDS[eventType];
    const payment = at(body, 'payload', 'payment', 'entity');
    const subject = !kind
      ? at(body, 'payload', text(at(body, 'contains', 0), 50) ?? 'payment', 'entity')
      : kind === 'payment.refunded'
        ? at(body, 'payload', 'refund', 'entity')
        : payment;
    const subjectId = text(at(subject, 'id'), 100);
    const createdAt = text(at(body, 'created_at'), 30);
    const eventId =
      subjectId && createdAt
        ? `${eventType.slice(0, 60)}:${subjectId}:${createdAt}`
        : bodyDigestId(rawBody);
    if (!kind) return { eventId, eventType, payment: null };
    const currency = currencyCode(at(subject, 'currency'));
    return {
      eventId,
      eventType,
      payment: {
        externalEventId: eventId,
        kind,
        objectId: subjectId,
        ...amountFields(at(subject, 'amount'), currency),
        currency,
        email: emailAddress(at(payment, 'email')),
      },
    };
  },
};
