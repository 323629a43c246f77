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

/** Returns `scrypt$N$r$p$<salt b64>$<key b64>`; the clear password is never stored. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = DEFAULT_COST;
  const key = await derive(password, salt, { N, r, p, maxmem: maxmemFor({ N, r }) });
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return false;
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const key = await derive(password, salt, { N, r, p, maxmem: maxmemFor({ N, r }) });
  return safeEqual(key, expected);
}
