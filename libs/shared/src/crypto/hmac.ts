import { createHash, createHmac, type BinaryLike } from 'node:crypto';

export type HmacEncoding = 'hex' | 'base64' | 'base64url';

/** HMAC of `data` keyed by `secret`, encoded as the caller's protocol expects. */
export function hmac(
  algorithm: 'sha1' | 'sha256' | 'sha512',
  secret: BinaryLike,
  data: BinaryLike,
  encoding: HmacEncoding,
): string {
  return createHmac(algorithm, secret).update(data).digest(encoding);
}

export function hmacSha256Hex(secret: BinaryLike, data: BinaryLike): string {
  return hmac('sha256', secret, data, 'hex');
}

export function hmacSha256Base64(secret: BinaryLike, data: BinaryLike): string {
  return hmac('sha256', secret, data, 'base64');
}

/** Used to store tokens and keys: we keep only the hash, never the secret itself. */
export function sha256Hex(data: BinaryLike): string {
  return createHash('sha256').update(data).digest('hex');
}
