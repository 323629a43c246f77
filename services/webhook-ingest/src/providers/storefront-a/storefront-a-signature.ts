import type { IncomingHttpHeaders } from 'node:http';
import { type Verification, verifyBodyHmac } from '@crm/shared/inbound';

export const STOREFRONT_A_SIGNATURE_HEADER = 'x-storefront-a-hmac-sha256';

/**
 * Storefront A: `x-storefront-a-hmac-sha256` = base64 HMAC-SHA256 of the raw body, keyed by
 * the connection's webhook secret. Pure: no clock, no database.
 */
export function verifyStorefrontA(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  secret: string,
): Verification {
  return verifyBodyHmac(
    { header: STOREFRONT_A_SIGNATURE_HEADER, encoding: 'base64' },
    rawBody,
    headers,
    secret,
  );
}
