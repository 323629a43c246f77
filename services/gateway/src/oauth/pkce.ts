import { createHash } from 'node:crypto';
import { safeEqual } from '@crm/shared/crypto';

/*
 * PKCE (RFC 7636), S256 only: the client sends SHA-256 of a secret verifier with the authorize
 * request and the verifier itself with the code, so a code intercepted on its way back to the
 * client is worthless without the verifier. `plain` is refused (OAuth 2.1).
 */

/** 43 to 128 characters of the unreserved set (RFC 7636 §4.1). */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL of a SHA-256 digest: 43 characters, no padding. */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether `verifier` is well formed and BASE64URL(SHA256(verifier)) equals `challenge`. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier) || !CODE_CHALLENGE.test(challenge)) return false;
  return safeEqual(s256Challenge(verifier), challenge);
}
