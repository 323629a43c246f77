import { headerValue, reject, unprocessable } from '@crm/shared/inbound';
import { verifyStripeSignature } from '../billing/stripe-signature';
import { amountFields } from './amounts';
import { at, currencyCode, emailAddress, text } from './payments-payload';
import type { PaymentKind, PaymentProviderModule } from './payment-event';

export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';

const KINDS: Record<string, PaymentKind> = {
  'payment_intent.succeeded': 'payment.succeeded',
  'payment_intent.payment_failed': 'payment.failed',
  'charge.refunded': 'payment.refunded',
};

/** Stripe: the Stripe-Signature scheme (shared with billing), 300 s tolerance. */
export const stripe: PaymentProviderModule = {
  verify(rawBody, headers, secret, now) {
    const header = headerValue(headers, STRIPE_SIGNATURE_HEADER);
    if (!header) return reject.badSignature(`The ${STRIPE_SIGNATURE_HEADER} header is required`);
    return verifyStripeSignature(rawBody, header, secret, now);
  },

  /**
   * payment_intent.succeeded / payment_failed carry a PaymentIntent, charge.refunded a Charge
   * whose `amount_refunded` is the total refunded so far. Amounts are in minor units. Keyed by
   * the event id in the signed body. A PaymentIntent succeeds once (its id is the object id);
   * a charge's refunds are told apart by the total refunded so far; a PaymentIntent may fail
   * many times, so failures have no object id.
   */
  normalize(body) {
    const eventId = text(at(body, 'id'), 200);
    const eventType = text(at(body, 'type'));
    if (!eventId || !eventType) {
      throw unprocessable('The body is not a Stripe event (id and type required)');
    }
    const kind = KINDS[eventType];
    if (!kind) return { eventId, eventType, payment: null };
    const object = at(body, 'data', 'object');
    const currency = currencyCode(at(object, 'currency'));
    const minor =
      kind === 'payment.refunded'
        ? at(object, 'amount_refunded')
        : kind === 'payment.succeeded'
          ? (at(object, 'amount_received') ?? at(object, 'amount'))
          : at(object, 'amount');
    return {
      eventId,
      eventType,
      payment: {
        externalEventId: eventId,
        kind,
        objectId: stripeObjectId(kind, text(at(object, 'id'), 200), text(minor, 30)),
        ...amountFields(minor, currency),
        currency,
        email: emailAddress(
          at(object, 'receipt_email'),
          at(object, 'billing_details', 'email'),
          at(object, 'latest_charge', 'billing_details', 'email'),
          at(object, 'last_payment_error', 'payment_method', 'billing_details', 'email'),
        ),
      },
    };
  },
};

/** See normalize: what one stored row of `kind` stands for (the migration 0008 backfill agrees). */
function stripeObjectId(kind: PaymentKind, id: string | null, minor: string | null) {
  if (!id) return null;
  if (kind === 'payment.succeeded') return id;
  if (kind === 'payment.refunded') return minor ? `${id}:${minor}` : null;
  return null;
}
