import type { IncomingHttpHeaders } from 'node:http';
import { verifyBodyHmac, type Verification } from '@crm/shared/inbound';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

/**
 * Specified: `x-hub-signature-256: sha256=<hex>`, the HMAC-SHA256
 * of the exact body bytes keyed by the app secret. Missing or wrong -> 401. The scheme signs
 * no timestamp, so there is no clock to check (redeliveries are caught by the ledger).
 */
export function verify(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  appSecret: string,
): Verification {
  // Hex digits are case-insensitive; Meta sends lower case.
  return verifyBodyHmac(
    { header: SIGNATURE_HEADER, encoding: 'hex', prefix: 'sha256=' },
    rawBody,
    headers,
    appSecret,
  );
}
