import { bodyDigestId } from '../../receivers/delivery-id';
import { headerValue, unprocessable } from '../../receivers/verification';
import { minorToMajor } from './amounts';
import { verifyBodyHmac } from '../../receivers/body-hmac';
import { at, currencyCode, emailAddress, text } from './payload';
import type { PaymentKind, PaymentProviderModule } from './payment-event';

export const RAZORPAY_SIGNATURE_HEADER = 'X-Razorpay-Signature';
export const RAZORPAY_EVENT_ID_HEADER = 'x-razorpay-event-id';

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
   * The event name is in the body; its id only in the x-razorpay-event-id header (the same
   * on every retry), so a delivery without it is keyed by a digest of the body. Payments and
   * refunds arrive as `payload.<entity>.entity`, amounts in minor units (paise).
   */
  normalize(body, rawBody, headers) {
    const eventType = text(at(body, 'event'));
    if (!eventType) throw unprocessable('The body is not a Razorpay event (event required)');
    const eventId =
      text(headerValue(headers, RAZORPAY_EVENT_ID_HEADER), 200) ?? bodyDigestId(rawBody);
    const kind = KINDS[eventType];
    if (!kind) return { eventId, eventType, payment: null };
    const payment = at(body, 'payload', 'payment', 'entity');
    const subject = kind === 'payment.refunded' ? at(body, 'payload', 'refund', 'entity') : payment;
    const currency = currencyCode(at(subject, 'currency'));
    return {
      eventId,
      eventType,
      payment: {
        externalEventId: eventId,
        kind,
        amount: minorToMajor(at(subject, 'amount'), currency),
        currency,
        email: emailAddress(at(payment, 'email')),
      },
    };
  },
};
