import { safeEqual } from '@crm/shared/crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { accepted, headerValue, reject, type Verification } from '@crm/shared/inbound';
import { parseFormParams } from './form-params';
import { expectedSignature, signedUrlCandidates } from './twilio-signature';

export const SIGNATURE_HEADER = 'x-telephony-signature';

/**
 * Specified: `X-Telephony-Signature` is Twilio's scheme, a base64
 * HMAC-SHA1 over the full public URL (as the caller addressed the gateway) and the sorted
 * form parameters of the raw body, keyed by the auth token. Missing or wrong -> 403 (what
 * Twilio's own middleware answers). The scheme signs no timestamp, so no clock is read.
 */
export function verify(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  authToken: string,
  publicUrl: string,
): Verification {
  const signature = headerValue(headers, SIGNATURE_HEADER);
  if (!signature)
    return reject.badSignatureForbidden('The X-Telephony-Signature header is required');
  const params = parseFormParams(rawBody);
  const valid = signedUrlCandidates(publicUrl).some((url) =>
    safeEqual(signature, expectedSignature(authToken, url, params)),
  );
  return valid ? accepted : reject.badSignatureForbidden();
}
