import { errors } from '@crm/shared/http';
import type { Request, RequestHandler, Response } from 'express';
import { isIP } from 'node:net';
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 60;
/** The counters' table (migration 0003), shared by every limiter and the gateway's retention sweep. */
export const COUNTERS_TABLE = 'rate_limits';

export interface RateLimitOptions {
  pool: Pool;
  /** Requests per minute per tenant, by plan. */
  planLimits: Record<string, number>;
  defaultTenantLimit: number;
  publicLimit: number;
  signInLimit: number;
}

/**
 * One limiter per (purpose, limit): counters live in Postgres (table rate_limits), so every
 * gateway replica counts against the same limit; each replica takes points in leases (above)
 * so a request does not cost a round trip. Should Postgres fail, an in-memory limiter of
 * the same size stands in (per replica) rather than letting everything through.
 */
function limiterFactory(pool: Pool) {
  const cache = new Map<string, (key: string) => Promise<LimitState>>();
  return (purpose: string, points: number) => {
    const key = `${purpose}:${points}`;
    let take = cache.get(key);
    if (!take) {
      const limiter = new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: COUNTERS_TABLE,
        tableCreated: true,
        // Expired rows are deleted by the gateway's retention sweep (retention/retention-sweeps.ts):
        // the library's own timer per limiter is never stopped and keeps the app reachable.
        clearExpiredByTimeout: false,
        keyPrefix: key,
        points,
        duration: WINDOW_SECONDS,
        insuranceLimiter: new RateLimiterMemory({
          keyPrefix: key,
          points,
          duration: WINDOW_SECONDS,
        }),
      });
      take = leasedLimiter(limiter, points);
      cache.set(key, take);
    }
    return take;
  };
}

/**
 * The share of a limit a replica takes from the shared counter in one round trip (a lease),
 * then hands out in memory: e.g. 50 of a 1,000/minute limit. Limits under 40 lease one point at
 * a time (every request counted in Postgres, exact), and so does every request once the shared
 * counter has fewer than two leases left. A lease ends with its window.
 *
 * Tolerance: never more than the limit is admitted across replicas (every point handed out was
 * first counted in Postgres); a client may be refused early by up to the points still unused
 * in other replicas' leases, at most (replicas - 1) x min(5% of the limit, 50) per window. The
 * cap keeps a large limit from being parcelled out to the first 20 replicas that see a key
 * (seen with a 100,000/minute limit and dozens of gateways on one database: the 21st got 429).
 */
export const LEASE_SHARE = 0.05;
export const MAX_LEASE = 50;

interface Lease {
  /** The shared counter after this lease was taken (this lease's points included). */
  consumed: number;
  /** Points of this lease not yet handed out. */
  left: number;
  /** Epoch ms at which the shared window (and this lease) ends. */
  resetAt: number;
  /** A lease being taken for this key right now (concurrent requests wait for it). */
  pending?: Promise<unknown>;
}

export interface LimitState {
  remainingPoints: number;
  msBeforeNext: number;
}

/** Takes one point of `points` for `key`, from a lease in memory when one has points left. */
function leasedLimiter(limiter: RateLimiterPostgres, points: number) {
  const leases = new Map<string, Lease>();
  const fullLease = Math.max(1, Math.min(MAX_LEASE, Math.floor(points * LEASE_SHARE)));

  const fromLease = (lease: Lease, now: number): LimitState => {
    lease.left -= 1;
    return {
      remainingPoints: Math.max(0, points - (lease.consumed - lease.left)),
      msBeforeNext: lease.resetAt - now,
    };
  };

  return async function take(key: string): Promise<LimitState> {
    for (;;) {
      const now = Date.now();
      const current = leases.get(key);
      if (current && current.resetAt <= now && !current.pending) leases.delete(key);
      const lease = leases.get(key);
      if (lease && lease.left > 0 && lease.resetAt > now) return fromLease(lease, now);
      if (lease?.pending) {
        await lease.pending.catch(() => undefined);
        continue;
      }
      const known = lease ? points - lease.consumed : points;
      const size = known >= 2 * fullLease ? fullLease : 1;
      const placeholder: Lease = lease ?? { consumed: 0, left: 0, resetAt: 0 };
      const taking = limiter.consume(key, size);
      placeholder.pending = taking;
      leases.set(key, placeholder);
      try {
        const res = await taking;
        const taken: Lease = {
          consumed: res.consumedPoints,
          left: size,
          resetAt: Date.now() + res.msBeforeNext,
        };
        leases.set(key, taken);
        return fromLease(taken, Date.now());
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          leases.set(key, {
            consumed: rejection.consumedPoints,
            left: 0,
            resetAt: Date.now() + rejection.msBeforeNext,
          });
        } else {
          leases.delete(key);
        }
        throw rejection;
      } finally {
        delete placeholder.pending;
      }
    }
  };
}

function setHeaders(res: Response, limit: number, state: LimitState): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remainingPoints));
  // Unix time (seconds) at which the window resets.
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)));
}

export interface RateLimits {
  /** Per tenant (from the plan of the membership the request acts in); after tenant resolution. */
  perTenant: RequestHandler;
  /** Per client IP on public routes. */
  perIpPublic: RequestHandler;
  /** Per client IP on sign-in / sign-up. */
  perIpSignIn: RequestHandler;
}

/**
 * The client address a per-IP limit counts against: `req.ip` (the nearest address in
 * X-Forwarded-For that is not a trusted proxy) when it is an IP address, else the peer's own.
 * A client talking to the gateway from a trusted network can put anything in that header (e.g.
 * 4,000 characters, longer than a counter's key may be, so every request fell back to the
 * in-memory limiter); such a value is no address to count against.
 */
export function clientAddress(req: Request): string {
  const ip = req.ip;
  return ip && isIP(ip) ? ip : (req.socket.remoteAddress ?? 'unknown');
}

export function createRateLimits(options: RateLimitOptions): RateLimits {
  const limiterFor = limiterFactory(options.pool);

  const limit =
    (purpose: string, keyOf: (req: Request) => { key: string; points: number }): RequestHandler =>
    async (req, res, next) => {
      const { key, points } = keyOf(req);
      try {
        const state = await limiterFor(purpose, points)(key);
        setHeaders(res, points, state);
        next();
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          setHeaders(res, points, rejection);
          next(errors.rateLimited(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
          return;
        }
        next(rejection);
      }
    };

  return {
    perTenant: limit('tenant', (req) => ({
      key: req.identity?.tenantId ?? 'none',
      points: options.planLimits[req.membership?.plan ?? ''] ?? options.defaultTenantLimit,
    })),
    perIpPublic: limit('public-ip', (req) => ({
      key: clientAddress(req),
      points: options.publicLimit,
    })),
    perIpSignIn: limit('sign-in-ip', (req) => ({
      key: clientAddress(req),
      points: options.signInLimit,
    })),
  };
}
