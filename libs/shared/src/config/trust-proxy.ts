import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Which peers may tell the app the client's address and protocol (X-Forwarded-For/-Proto/-Host),
 * in the form express's `trust proxy` takes: `false` (none: the socket's peer is the client), a
 * number of proxy hops in front of the app, or a list of proxy addresses / CIDR ranges and the
 * keywords `loopback`, `linklocal`, `uniquelocal`.
 */
export type TrustProxy = false | number | string[];

const KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (KEYWORDS.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  // A prefix length, or an IPv4 netmask (proxy-addr accepts both).
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(prefix) === 4;
}

const MESSAGE =
  'expected a number of proxy hops (e.g. 1) or a comma-separated list of proxy addresses, ' +
  'CIDR ranges, loopback, linklocal or uniquelocal';

/**
 * `TRUST_PROXY`: unset or `0` -> `false` (no proxy trusted: X-Forwarded-* is ignored, so a
 * client cannot choose the address its rate limits count against); `2` -> two hops;
 * `10.0.0.0/8, loopback` -> those peers. `true` (trust every peer) is refused: any client could
 * then set its own address.
 */
export const trustProxy = () =>
  z
    .string()
    .default('')
    .transform((value, ctx): TrustProxy => {
      const text = value.trim();
      if (text === '') return false;
      if (/^\d+$/.test(text)) {
        const hops = Number(text);
        if (hops <= 100) return hops === 0 ? false : hops;
      }
      const entries = text
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
      ctx.addIssue({ code: 'custom', message: MESSAGE });
      return z.NEVER;
    });
