import { hmacSha256Hex, safeEqual } from '@crm/shared/crypto';
import {
  accepted,
  headerValue,
  isWithinTolerance,
  parseSignatureHeader,
  reject,
  unprocessable,
  type Verification,
} from '@crm/shared/inbound';
import { amountFields } from './amounts';
import { at, currencyCode, emailAddress, firstText, text } from './payments-payload';
import type { PaymentEvent, PaymentKind, PaymentProviderModule } from './payment-event';

export const PADDLE_SIGNATURE_HEADER = 'Paddle-Signature';
/**
 * Paddle's SDKs default to 5 seconds; we allow 300 (as for Stripe and the network receiver)
 * so a delivery queued briefly behind the gateway or a clock a little off is not refused.
 * The ledger still refuses a replay of the same event id within and beyond that window.
 */
export const PADDLE_TOLERANCE_SECONDS = 300;

/**
 * Paddle Billing: `Paddle-Signature: ts=<unix>;h1=<hex>`, h1 an HMAC-SHA256 of `<ts>:<raw
 * body>` keyed by the notification destination's secret. Several h1 arrive while a secret is
 * rotated; any one matching accepts. Pure: the caller passes the clock.
 */
export function verifyPaddleSignature(
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now: Date,
): Verification {
  const header = headerValue(headers, PADDLE_SIGNATURE_HEADER);
  if (!header) return reject.badSignature(`The ${PADDLE_SIGNATURE_HEADER} header is required`);
  const parts = parseSignatureHeader(header, ';');
  // Exactly one timestamp: two would leave which one was signed ambiguous.
  const timestamps = parts.get('ts') ?? [];
  const timestamp = timestamps.length === 1 ? timestamps[0] : undefined;
  const signatures = parts.get('h1') ?? [];
  if (!timestamp || !/^\d{1,15}$/.test(timestamp) || signatures.length === 0) {
    return reject.badSignature('The signature header is malformed');
  }
  const expected = hmacSha256Hex(secret, Buffer.concat([Buffer.from(`${timestamp}:`), rawBody]));
  const matched = signatures.reduce(
    (found, candidate) => safeEqual(expected, candidate.toLowerCase()) || found,
    false,
  );
  if (!matched) return reject.badSignature();
  if (!isWithinTolerance(Number(timestamp), now, PADDLE_TOLERANCE_SECONDS)) {
    return reject.staleTimestamp(PADDLE_TOLERANCE_SECONDS);
  }
  return accepted;
}

const TRANSACTION_KINDS: Record<string, PaymentKind> = {
  'transaction.completed': 'payment.succeeded',
  'transaction.payment_failed': 'payment.failed',
};
const ADJUSTMENT_EVENTS = new Set(['adjustment.created', 'adjustment.updated']);

export const paddle: PaymentProviderModule = {
  verify: verifyPaddleSignature,

  /**
   * Transactions carry `details.totals`, adjustments `totals`, both as strings in minor
   * units. A refund is an adjustment with action `refund`; it is stored once approved (a
   * refund pending approval has refunded nothing yet, and is often followed by an
   * adjustment.updated that approves it). Keyed by the signed body's `event_id`. A transaction
   * completes once and an adjustment refunds once, so their ids are the object ids (an
   * adjustment.created already approved and its adjustment.updated store one refund); a
   * transaction's payment may fail many times, so failures have none.
   */
  normalize(body) {
    const eventId = text(at(body, 'event_id'), 200);
    const eventType = text(at(body, 'event_type'));
    if (!eventId || !eventType) {
      throw unprocessable('The body is not a Paddle event (event_id and event_type required)');
    }
    const data = at(body, 'data');
    const ignored: PaymentEvent = { eventId, eventType, payment: null };
    const transactionKind = TRANSACTION_KINDS[eventType];
    if (transactionKind) {
      const currency = currencyCode(at(data, 'currency_code'));
      const totals = at(data, 'details', 'totals');
      const minor = firstText(at(totals, 'grand_total'), at(totals, 'total'));
      const objectId = transactionKind === 'payment.succeeded' ? text(at(data, 'id'), 200) : null;
      return payment(eventId, eventType, transactionKind, objectId, minor, currency, data);
    }
    if (ADJUSTMENT_EVENTS.has(eventType)) {
      if (at(data, 'action') !== 'refund') return { ...ignored, ignoredReason: 'not a refund' };
      if (at(data, 'status') !== 'approved') {
        return { ...ignored, ignoredReason: 'refund not approved yet' };
      }
      const currency = currencyCode(
        at(data, 'currency_code') ?? at(data, 'totals', 'currency_code'),
      );
      return payment(
        eventId,
        eventType,
        'payment.refunded',
        text(at(data, 'id'), 200),
        at(data, 'totals', 'total'),
        currency,
        data,
      );
    }
    return ignored;
  },
};

function payment(
  eventId: string,
  eventType: string,
  kind: PaymentKind,
  objectId: string | null,
  minor: unknown,
  currency: string | null,
  data: unknown,
): PaymentEvent {
  return {
    eventId,
    eventType,
    payment: {
      externalEventId: eventId,
      kind,
      objectId,
      ...amountFields(minor, currency),
      currency,
      // Paddle sends a customer id; an email only when the customer is included.
      email: emailAddress(at(data, 'customer', 'email'), at(data, 'customer_email')),
    },
  };
}
