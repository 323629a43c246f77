import { hmacSha256Hex, safeEqual } from '@crm/shared/crypto';
import { accepted, headerValue, reject, type Verification } from '../../receivers/verification';

/**
 * The scheme Razorpay and Lemon Squeezy share: `header` carries the hex HMAC-SHA256 of the
 * exact raw body, keyed by the webhook secret as entered. No timestamp is signed, so replays
 * are caught by the ledger (one row per event id), not here.
 */
export function verifyBodyHmacHex(
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  header: string,
  secret: string,
): Verification {
  const signature = headerValue(headers, header);
  if (!signature) return reject.badSignature(`The ${header} header is required`);
  return safeEqual(hmacSha256Hex(secret, rawBody), signature.trim().toLowerCase())
    ? accepted
    : reject.badSignature();
}
