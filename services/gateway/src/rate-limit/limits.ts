import { errors } from '@crm/shared/http';
import type { Request, RequestHandler, Response } from 'express';
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 60;

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
 * gateway replica counts against the same limit. Should Postgres fail, an in-memory limiter of
 * the same size stands in (per replica) rather than letting everything through.
 */
function limiterFactory(pool: Pool) {
  const cache = new Map<string, RateLimiterPostgres>();
  return (purpose: string, points: number) => {
    const key = `${purpose}:${points}`;
    let limiter = cache.get(key);
    if (!limiter) {
      limiter = new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: key,
        points,
        duration: WINDOW_SECONDS,
        insuranceLimiter: new RateLimiterMemory({
          keyPrefix: key,
          points,
          duration: WINDOW_SECONDS,
        }),
      });
      cache.set(key, limiter);
    }
    return limiter;
  };
}

function setHeaders(res: Response, limit: number, state: RateLimiterRes): void {
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

export function createRateLimits(options: RateLimitOptions): RateLimits {
  const limiterFor = limiterFactory(options.pool);

  const limit =
    (purpose: string, keyOf: (req: Request) => { key: string; points: number }): RequestHandler =>
    async (req, res, next) => {
      const { key, points } = keyOf(req);
      try {
        const state = await limiterFor(purpose, points).consume(key);
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
      key: req.ip ?? 'unknown',
      points: options.publicLimit,
    })),
    perIpSignIn: limit('sign-in-ip', (req) => ({
      key: req.ip ?? 'unknown',
      points: options.signInLimit,
    })),
  };
}
