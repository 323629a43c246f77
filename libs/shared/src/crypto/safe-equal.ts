import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality for secrets and signatures.
 *
 * `crypto.timingSafeEqual` throws on buffers of unequal length, and returning early on a length
 * mismatch would leak the expected length. Comparing fixed-size digests of both sides takes the
 * same time whatever the inputs, and two digests are equal exactly when the inputs are.
 */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const digestA = createHash('sha256').update(a).digest();
  const digestB = createHash('sha256').update(b).digest();
  return timingSafeEqual(digestA, digestB);
}
