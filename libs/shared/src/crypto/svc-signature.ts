import { randomUUID } from 'node:crypto';
import { hmacSha256Hex } from './hmac';

/**
 * Signed server-to-server calls (`/api/migrate/*`): the signing string is the method, the path,
 * the timestamp in milliseconds, the nonce and the raw body, joined by "\n"; the signature is
 * HMAC-SHA256 of it keyed by the shared secret, in hex. The path is the public one the caller
 * sends (`/api/migrate/ingest`), without the query string.
 */
export const SVC_SIGNATURE_HEADER = 'x-svc-signature';
export const SVC_TIMESTAMP_HEADER = 'x-svc-timestamp';
export const SVC_NONCE_HEADER = 'x-svc-nonce';

export interface SvcSignatureHeaders {
  'x-svc-signature': string;
  'x-svc-timestamp': string;
  'x-svc-nonce': string;
}

/** The exact bytes that are signed. */
export function svcSigningString(
  method: string,
  path: string,
  timestampMs: string,
  nonce: string,
  body: Buffer | string,
): Buffer {
  const head = Buffer.from(`${method.toUpperCase()}\n${path}\n${timestampMs}\n${nonce}\n`, 'utf8');
  return Buffer.concat([head, typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

export function svcSignature(
  secret: string,
  method: string,
  path: string,
  timestampMs: string,
  nonce: string,
  body: Buffer | string,
): string {
  return hmacSha256Hex(secret, svcSigningString(method, path, timestampMs, nonce, body));
}

/**
 * The three headers of one signed request, with a fresh nonce and the current time unless
 * given: what a migration tool sends (a retry must call this again: nonces are single-use).
 */
export function signSvcRequest(
  secret: string,
  request: { method: string; path: string; body: Buffer | string },
  now: { timestampMs?: number; nonce?: string } = {},
): SvcSignatureHeaders {
  const timestamp = String(now.timestampMs ?? Date.now());
  const nonce = now.nonce ?? randomUUID();
  return {
    'x-svc-signature': svcSignature(
      secret,
      request.method,
      request.path,
      timestamp,
      nonce,
      request.body,
    ),
    'x-svc-timestamp': timestamp,
    'x-svc-nonce': nonce,
  };
}
