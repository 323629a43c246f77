import type { IncomingHttpHeaders } from 'node:http';
import { hmacSha256Base64, safeEqual } from '@crm/shared/crypto';
import { accepted, headerValue, reject, type Verification } from '../../receivers/verification';

/**
 * Both storefront schemes sign alike: `header` is the base64 HMAC-SHA256 of the exact body
 * bytes keyed by the connection's webhook secret, with no timestamp (the ledger catches a
 * replayed delivery id). Missing or wrong: 401. Compared in constant time.
 */
export function verifyBodyHmacBase64(
  header: string,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  secret: string,
): Verification {
  const signature = headerValue(headers, header)?.trim();
  if (!signature) return reject.badSignature(`The ${header} header is required`);
  return safeEqual(signature, hmacSha256Base64(secret, rawBody)) ? accepted : reject.badSignature();
}
