import { hmac, safeEqual } from '../crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { accepted, headerValue, reject, type Verification } from './verification';

export interface BodyHmacScheme {
  /** The header carrying the signature. */
  header: string;
  /** How the provider encodes the digest: hex (Razorpay, Lemon Squeezy, messaging) or base64 (storefronts). */
  encoding: 'hex' | 'base64';
  /** Text before the digest in the header, e.g. `sha256=` (messaging). */
  prefix?: string;
}

/**
 * The scheme most providers share: `header` carries the HMAC-SHA256 of the exact body bytes,
 * keyed by the secret as entered, with no signed timestamp (the ledger catches a replayed
 * delivery id). Missing or wrong: 401. Compared in constant time; hex digits compare
 * case-insensitively, base64 exactly.
 */
export function verifyBodyHmac(
  scheme: BodyHmacScheme,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  secret: string,
): Verification {
  const sent = headerValue(headers, scheme.header)?.trim();
  if (!sent) return reject.badSignature(`The ${scheme.header} header is required`);
  const expected = `${scheme.prefix ?? ''}${hmac('sha256', secret, rawBody, scheme.encoding)}`;
  const signature = scheme.encoding === 'hex' ? sent.toLowerCase() : sent;
  return safeEqual(signature, expected) ? accepted : reject.badSignature();
}
