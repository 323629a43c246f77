import { randomBytes } from 'node:crypto';

/** A URL-safe random token with `bytes` bytes of entropy (32 by default: 256 bits). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
