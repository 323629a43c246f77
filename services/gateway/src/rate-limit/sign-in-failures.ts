import { createHash } from 'node:crypto';
import { errors } from '@crm/shared/http';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { COUNTERS_TABLE } from './limits';

export interface SignInFailureLimits {
  /** Consecutive failures for one account, from any address, before attempts wait. */
  perAccount: number;
  /** Consecutive failures for one account from one address, before that address waits. */
  perAccountAndAddress: number;
  /** The wait after the attempt that reached a limit; each further attempt doubles it... */
  firstDelaySeconds: number;
  /** ...up to this, so nobody is ever held longer after the last attempt. */
  maxDelaySeconds: number;
}

/** A run of failures is forgotten this long after its first failure (a success ends it at once). */
const FAILURES_KEPT_SECONDS = 24 * 3600;
/** An address the account signed in from stays known this long after the last success there. */
const KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600;

/** Seconds the attempt after the `n`-th one at or past a limit waits (n = 1, 2, ...). */
export function delayBeforeAttempt(n: number, firstSeconds: number, maxSeconds: number): number {
  return Math.min(maxSeconds, firstSeconds * 2 ** Math.min(n - 1, 30));
}

/** One sign-in attempt let through; counted as a failure unless `succeeded` is called. */
export interface SignInAttempt {
  succeeded(): Promise<void>;
}

export interface SignInFailures {
  /**
   * Lets a sign-in attempt for `email` from `address` through, or throws 429
   * RATE_LIMIT_EXCEEDED (with retryAfter) while one of its keys waits. The same for every
   * email, registered or not, so the answer tells nothing about which accounts exist.
   */
  admit(email: string, address: string): Promise<SignInAttempt>;
}

/**
 * Keys hash the email so the counters table holds no addresses of people (and stays within
 * its 255-character key). The email is normalized the way sign-in looks accounts up.
 */
function accountKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');
}

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The per-account protection of sign-in (rate-limiter-flexible's login-endpoint pattern, in the
 * gateway's Postgres counters): consecutive failures per account and per account + address;
 * from the attempt that reaches a limit on, each attempt on that key must wait a delay that
 * doubles up to maxDelaySeconds. An address the account has signed in from before is not held
 * by the account-wide wait (only by its own), so an attacker cannot keep the owner out.
 */
export function createSignInFailures(pool: Pool, limits: SignInFailureLimits): SignInFailures {
  const store = (keyPrefix: string, duration: number) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: COUNTERS_TABLE,
      tableCreated: true,
      // The gateway's retention sweep deletes expired rows (retention/retention-sweeps.ts).
      clearExpiredByTimeout: false,
      keyPrefix,
      points: 1,
      duration,
    });
  const failures = store('sign-in-failures', FAILURES_KEPT_SECONDS);
  // A row held for the current delay: whoever takes it (points 1) may try, others wait.
  const waits = store('sign-in-wait', limits.firstDelaySeconds);
  const knownAddresses = store('sign-in-known-address', KNOWN_ADDRESS_SECONDS);

  const heldMs = (res: RateLimiterRes | null) => (res ? res.msBeforeNext : 0);

  /** Takes `key`'s wait for the `n`-th attempt past its limit; 0, or how long another holds it. */
  async function takeWait(key: string, n: number): Promise<number> {
    const customDuration = delayBeforeAttempt(n, limits.firstDelaySeconds, limits.maxDelaySeconds);
    try {
      await waits.consume(key, 1, { customDuration });
      return 0;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, rejection.msBeforeNext);
      throw rejection;
    }
  }

  return {
    async admit(email, address) {
      const account = accountKey(email);
      const pair = `${account}:${address}`;
      let known: Promise<boolean> | undefined;
      const isKnown = () => (known ??= knownAddresses.get(pair).then((res) => res !== null));

      // 1. While a key waits, attempts are refused unseen (the password is not looked at) and
      //    not counted, so the owner's own attempts do not lengthen anything.
      const [pairWait, accountWait] = await Promise.all([waits.get(pair), waits.get(account)]);
      const accountHeld = heldMs(accountWait) > 0 && !(await isKnown()) ? heldMs(accountWait) : 0;
      const held = Math.max(heldMs(pairWait), accountHeld);
      if (held > 0) throw errors.rateLimited(secondsOf(held));

      // 2. Counted as failures before the password is checked, so concurrent attempts cannot
      //    all slip in under a limit; a success deletes the counts.
      const [pairCount, accountCount] = await Promise.all([
        failures.penalty(pair),
        failures.penalty(account),
      ]);

      // 3. An attempt at or past a limit takes that key's wait (the next attempt waits for it);
      //    of concurrent ones only one gets it, the others are refused.
      const pairPast = pairCount.consumedPoints - limits.perAccountAndAddress + 1;
      const accountPast = accountCount.consumedPoints - limits.perAccount + 1;
      const takesAccountWait = accountPast > 0 && !(await isKnown());
      const [pairRefused, accountRefused] = await Promise.all([
        pairPast > 0 ? takeWait(pair, pairPast) : 0,
        takesAccountWait ? takeWait(account, accountPast) : 0,
      ]);
      const refused = Math.max(pairRefused, accountRefused);
      if (refused > 0) throw errors.rateLimited(secondsOf(refused));

      return {
        async succeeded() {
          // The run of failures is over for the account and this address. A wait that other
          // attempts set on the account keeps running (an attacker's delay is not lifted by the
          // owner signing in); the one this attempt took is released.
          await Promise.all([
            failures.delete(pair),
            failures.delete(account),
            waits.delete(pair),
            takesAccountWait ? waits.delete(account) : undefined,
            knownAddresses.set(pair, 1, KNOWN_ADDRESS_SECONDS),
          ]);
        },
      };
    },
  };
}
