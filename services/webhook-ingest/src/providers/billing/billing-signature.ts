import { headerValue, reject, type Verification } from '@crm/shared/inbound';
import { verifyStripeSignature } from './stripe-signature';

export const BILLING_SIGNATURE_HEADER = 'billing-signature';

/**
 * Specified: `billing-signature` against BILLING_WEBHOOK_SECRET, in the
 * Stripe-Signature scheme (300 s tolerance). Header missing: 400 (specified); anything
 * that does not verify: 401.
 */
export function verify(
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now: Date,
): Verification {
  const header = headerValue(headers, BILLING_SIGNATURE_HEADER);
  if (!header) return reject.missingHeader(BILLING_SIGNATURE_HEADER);
  return verifyStripeSignature(rawBody, header, secret, now);
}
