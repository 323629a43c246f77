import { hmacSha256Hex, safeEqual } from '@crm/shared/crypto';
import {
  accepted,
  headerValue,
  isWithinTolerance,
  parseSignatureHeader,
  reject,
  type Verification,
} from '@crm/shared/inbound';

export const NETWORK_SIGNATURE_HEADER = 'x-network-signature';
/** Specified: network signature timestamp skew, 300 s either direction. */
export const NETWORK_TOLERANCE_SECONDS = 300;

const UNIX_SECONDS = /^\d{1,12}$/;
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

/**
 * Specified: `x-network-signature: t=<unix_seconds>,v1=<hex>`, v1 the
 * HMAC-SHA256 of `<t>.<raw body bytes>` keyed by the secret. Several v1 values are allowed (a
 * partner rotating its secret signs with both); one match suffices. A missing or malformed
 * header, a timestamp more than 300 s from `now` either way, or no matching v1: 401.
 * Pure: the caller passes the clock.
 */
export function verifyNetworkSignature(
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now: Date,
): Verification {
  const header = headerValue(headers, NETWORK_SIGNATURE_HEADER);
  if (header === undefined) {
    return reject.badSignature(`The ${NETWORK_SIGNATURE_HEADER} header is required`);
  }
  const parts = parseSignatureHeader(header, ',');
  const timestamp = parts.get('t');
  const signatures = (parts.get('v1') ?? []).filter((value) => HEX_DIGEST.test(value));
  if (timestamp?.length !== 1 || !UNIX_SECONDS.test(timestamp[0]) || signatures.length === 0) {
    return reject.badSignature(
      `The ${NETWORK_SIGNATURE_HEADER} header must be t=<unix seconds>,v1=<hex HMAC-SHA256>`,
    );
  }
  if (!isWithinTolerance(Number(timestamp[0]), now, NETWORK_TOLERANCE_SECONDS)) {
    return reject.staleTimestamp(NETWORK_TOLERANCE_SECONDS);
  }
  // Signed over the exact bytes received, never a re-serialisation of parsed JSON.
  const expected = hmacSha256Hex(secret, Buffer.concat([Buffer.from(`${timestamp[0]}.`), rawBody]));
  // Every candidate is compared (no early exit), so timing says nothing about which matched.
  let matched = false;
  for (const signature of signatures) {
    if (safeEqual(signature.toLowerCase(), expected)) matched = true;
  }
  return matched ? accepted : reject.badSignature();
}
