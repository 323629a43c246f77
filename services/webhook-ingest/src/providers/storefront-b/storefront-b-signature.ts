import type { IncomingHttpHeaders } from 'node:http';
import { headerValue, type Verification, verifyBodyHmac } from '@crm/shared/inbound';

export const STOREFRONT_B_SIGNATURE_HEADER = 'x-storefront-b-webhook-signature';

/**
 * Storefront B: `x-storefront-b-webhook-signature` = base64 HMAC-SHA256 of the raw body,
 * keyed by the connection's webhook secret. Pure: no clock, no database.
 */
export function verifyStorefrontB(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  secret: string,
): Verification {
  return verifyBodyHmac(
    { header: STOREFRONT_B_SIGNATURE_HEADER, encoding: 'base64' },
    rawBody,
    headers,
    secret,
  );
}

// When a webhook is created, storefront B posts `webhook_id=<id>` as a form, unsigned and
// usually without a source header, and disables the webhook unless it gets a 2xx.
const PING_BODY = /^webhook_id=[0-9]{1,20}$/;

/**
 * The creation ping: no signature header and exactly that body. Answered 200 with nothing
 * stored: it carries no data, and unsigned it proves nothing about any connection.
 */
export function isStorefrontBPing(rawBody: Buffer, headers: IncomingHttpHeaders): boolean {
  return (
    headerValue(headers, STOREFRONT_B_SIGNATURE_HEADER) === undefined &&
    rawBody.length <= 40 &&
    PING_BODY.test(rawBody.toString('latin1'))
  );
}
