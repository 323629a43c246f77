import { hmacSha256Hex, safeEqual } from '@crm/shared/crypto';
import {
  accepted,
  isWithinTolerance,
  parseSignatureHeader,
  reject,
  type Verification,
} from '@crm/shared/inbound';

/** Stripe's own default tolerance (its SDK's DEFAULT_TOLERANCE), in either direction here. */
export const STRIPE_TOLERANCE_SECONDS = 300;

/**
 * The Stripe-Signature scheme, shared by the billing receiver and Stripe payment connections:
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, each v1 an HMAC-SHA256 of `<t>.<raw body>`.
 * The key is the endpoint secret exactly as Stripe shows it, `whsec_` prefix included (Stripe
 * does not decode it), so headers made by `stripe.webhooks.generateTestHeaderString` verify.
 * Several v1 values arrive while a secret is being rolled; any one matching accepts.
 * The signature is checked before the timestamp, so "stale" is only ever said of a genuine
 * signature. Pure: the caller passes the clock.
 */
export function verifyStripeSignature(
  rawBody: Buffer,
  header: string,
  secret: string,
  now: Date,
  toleranceSeconds = STRIPE_TOLERANCE_SECONDS,
): Verification {
  const parts = parseSignatureHeader(header, ',');
  // Exactly one timestamp: two would leave which one was signed ambiguous.
  const timestamps = parts.get('t') ?? [];
  const timestamp = timestamps.length === 1 ? timestamps[0] : undefined;
  const signatures = parts.get('v1') ?? [];
  if (!timestamp || !/^\d{1,15}$/.test(timestamp) || signatures.length === 0) {
    return reject.badSignature('The signature header is malformed');
  }
  const expected = hmacSha256Hex(secret, Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]));
  // Every candidate is compared (no early exit), each in constant time.
  const matched = signatures.reduce(
    (found, candidate) => safeEqual(expected, candidate.toLowerCase()) || found,
    false,
  );
  if (!matched) return reject.badSignature();
  if (!isWithinTolerance(Number(timestamp), now, toleranceSeconds)) {
    return reject.staleTimestamp(toleranceSeconds);
  }
  return accepted;
}
