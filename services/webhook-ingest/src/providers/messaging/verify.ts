import { hmacSha256Hex, safeEqual } from '@crm/shared/crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { accepted, headerValue, reject, type Verification } from '../../receivers/verification';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

/**
 * SPEC.md (Authentication 4, messaging): `x-hub-signature-256: sha256=<hex>`, the HMAC-SHA256
 * of the exact body bytes keyed by the app secret. Missing or wrong -> 401. The scheme signs
 * no timestamp, so there is no clock to check (redeliveries are caught by the ledger).
 */
export function verify(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  appSecret: string,
): Verification {
  const signature = headerValue(headers, SIGNATURE_HEADER);
  if (!signature) return reject.badSignature(`The ${SIGNATURE_HEADER} header is required`);
  const expected = `sha256=${hmacSha256Hex(appSecret, rawBody)}`;
  // Hex digits are case-insensitive; Meta sends lower case.
  return safeEqual(signature.toLowerCase(), expected) ? accepted : reject.badSignature();
}
