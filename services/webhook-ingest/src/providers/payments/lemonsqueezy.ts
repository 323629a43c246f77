import { bodyDigestId, unprocessable, verifyBodyHmac } from '@crm/shared/inbound';
import { amountFields } from './amounts';
import { at, currencyCode, emailAddress, text } from './payments-payload';
import type { PaymentKind, PaymentProviderModule } from './payment-event';

export const LEMONSQUEEZY_SIGNATURE_HEADER = 'X-Signature';

const KINDS: Record<string, PaymentKind> = {
  order_created: 'payment.succeeded',
  subscription_payment_success: 'payment.succeeded',
  subscription_payment_failed: 'payment.failed',
  order_refunded: 'payment.refunded',
};

/** Lemon Squeezy: hex HMAC-SHA256 of the raw body in X-Signature. */
export const lemonsqueezy: PaymentProviderModule = {
  verify(rawBody, headers, secret) {
    return verifyBodyHmac(
      { header: LEMONSQUEEZY_SIGNATURE_HEADER, encoding: 'hex' },
      rawBody,
      headers,
      secret,
    );
  },

  /**
   * Lemon Squeezy sends no event id: `meta.event_name` names the event and `data` is the
   * order or subscription invoice, so the event is keyed by name and object id. A second
   * partial refund of one order is a new event with the same name and id, so refunds also
   * carry the refunded total. Amounts are in cents. An order (or subscription invoice) is paid
   * once and each refunded total refunded once, so those are the object ids; failures have none.
   */
  normalize(body, rawBody) {
    const eventType = text(at(body, 'meta', 'event_name'));
    if (!eventType) {
      throw unprocessable('The body is not a Lemon Squeezy event (meta.event_name required)');
    }
    const data = at(body, 'data');
    const attributes = at(data, 'attributes');
    const objectId = text(at(data, 'id'), 100);
    const kind = KINDS[eventType];
    const refunded = kind === 'payment.refunded' ? at(attributes, 'refunded_amount') : undefined;
    const object = objectId
      ? [text(at(data, 'type'), 50) ?? 'object', objectId, text(refunded, 30)]
          .filter(Boolean)
          .join(':')
      : null;
    const eventId = object ? `${eventType}:${object}` : bodyDigestId(rawBody);
    if (!kind) return { eventId, eventType, payment: null };
    const currency = currencyCode(at(attributes, 'currency'));
    return {
      eventId,
      eventType,
      payment: {
        externalEventId: eventId,
        kind,
        objectId: kind === 'payment.failed' ? null : object,
        ...amountFields(refunded ?? at(attributes, 'total'), currency),
        currency,
        email: emailAddress(at(attributes, 'user_email')),
      },
    };
  },
};
