import { randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { safeEqual } from './safe-equal';

// scrypt parameters (N=2^15, r=8, p=1: about 32 MiB and ~50 ms per hash) are stored with each
// hash, so they can be raised later without invalidating existing passwords.
const DEFAULT_COST = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function maxmemFor({ N, r }: { N: number; r: number }): number {
  return 256 * N * r;
}

// A stored hash is data, not code: its cost parameters are bounded so a corrupt or planted
// row cannot make one login attempt allocate gigabytes or spin for minutes.
const MAX_MEMORY_BYTES = 256 * 1024 * 1024; // scrypt uses about 128 * N * r bytes
const MAX_P = 16;

function isSaneCost(N: number, r: number, p: number): boolean {
  const isPowerOfTwo = (n: number) => n >= 2 && (n & (n - 1)) === 0;
  return (
    [N, r, p].every((n) => Number.isInteger(n) && n > 0) &&
    isPowerOfTwo(N) &&
    128 * N * r <= MAX_MEMORY_BYTES &&
    p <= MAX_P
  );
}

/** Returns `scrypt$N$r$p$<salt b64>$<key b64>`; the clear password is never stored. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = DEFAULT_COST;
  const key = await derive(password, salt, { N, r, p, maxmem: maxmemFor({ N, r }) });
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** False for a wrong password and for any stored value that is not a hash we wrote; never throws. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (typeof password !== 'string' || typeof stored !== 'string') return false;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (!isSaneCost(N, r, p)) return false;
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (salt.length === 0 || expected.length !== KEY_LENGTH) return false;
  try {
    const key = await derive(password, salt, { N, r, p, maxmem: maxmemFor({ N, r }) });
    return safeEqual(key, expected);
  } catch {
    // Parameters node's scrypt still refuses (e.g. memory limits): not a hash we can check.
    return false;
  }
}
