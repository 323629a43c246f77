import { safeEqual, svcSignature } from '@crm/shared/crypto';
import { headerValue } from '@crm/shared/inbound';
import type { IncomingHttpHeaders } from 'node:http';

/** Specified: the timestamp must lie within 5 minutes of the server's clock. */
export const SKEW_WINDOW_MS = 5 * 60 * 1000;
const MAX_NONCE_LENGTH = 200;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const MILLISECONDS = /^\d{1,16}$/;

/** The specified rejection reasons; callers branch on them, not on the status. */
export type RejectionReason =
  | 'missing_signing_secret'
  | 'timestamp_out_of_range'
  | 'bad_signature'
  | 'replay'
  | 'nonce_store_error';

export type SignatureCheck =
  | { ok: true; nonce: string }
  | { ok: false; reason: Exclude<RejectionReason, 'replay' | 'nonce_store_error'> };

/**
 * The pure part of a signed call's check, on the exact bytes received, before anything is
 * parsed or written: the secret is configured, the timestamp (milliseconds) is within the
 * skew window either way, and the signature matches HMAC-SHA256(secret, method \n path \n
 * timestamp \n nonce \n body) in hex, compared in constant time. A missing or malformed
 * signature or nonce header is `bad_signature`: without them nothing can have been signed.
 * The nonce is recorded only after this passes (a forged request cannot burn one).
 */
export function verifySignedRequest(
  request: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer },
  secret: string | undefined,
  nowMs: number,
): SignatureCheck {
  if (!secret) return { ok: false, reason: 'missing_signing_secret' };
  const timestamp = headerValue(request.headers, 'x-svc-timestamp');
  if (
    timestamp === undefined ||
    !MILLISECONDS.test(timestamp) ||
    Math.abs(nowMs - Number(timestamp)) > SKEW_WINDOW_MS
  ) {
    return { ok: false, reason: 'timestamp_out_of_range' };
  }
  const signature = headerValue(request.headers, 'x-svc-signature');
  const nonce = headerValue(request.headers, 'x-svc-nonce');
  if (
    signature === undefined ||
    !HEX_SHA256.test(signature) ||
    nonce === undefined ||
    nonce.length === 0 ||
    nonce.length > MAX_NONCE_LENGTH
  ) {
    return { ok: false, reason: 'bad_signature' };
  }
  const expected = svcSignature(
    secret,
    request.method,
    request.path,
    timestamp,
    nonce,
    request.body,
  );
  if (!safeEqual(signature.toLowerCase(), expected)) return { ok: false, reason: 'bad_signature' };
  return { ok: true, nonce };
}
