import { port, positiveInt, serviceEnv, trustProxy } from '@crm/shared/config';
import { z } from 'zod';

const httpUrl = (fallback: string) =>
  z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL' })
    .default(fallback)
    .transform((u) => u.replace(/\/$/, ''));

/** `free=1000,pro=3000`: requests per minute per tenant for each plan. */
const planLimits = z
  .string()
  .default('free=1000,pro=3000,enterprise=10000')
  .transform((value, ctx) => {
    const limits: Record<string, number> = {};
    for (const entry of value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const [plan, limit] = entry.split('=');
      const n = Number(limit);
      if (!plan || !Number.isInteger(n) || n <= 0) {
        ctx.addIssue({
          code: 'custom',
          message: 'expected plan=requests-per-minute pairs, e.g. free=1000,pro=3000',
        });
        return z.NEVER;
      }
      limits[plan.trim()] = n;
    }
    return limits;
  });

const originList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((o) => o.trim().replace(/\/$/, ''))
      .filter(Boolean),
  );

export const configSchema = serviceEnv.extend({
  GATEWAY_PORT: port(8080),
  /** The address users reach the gateway at; https makes the session cookie Secure. */
  PUBLIC_BASE_URL: httpUrl('http://localhost:8080'),
  /**
   * The proxies in front of the gateway whose X-Forwarded-For/-Proto are believed: a hop count
   * (1 behind a Kubernetes ingress) or their addresses / CIDR ranges; unset = none, so per-IP
   * limits count against the connecting peer and a client cannot pick its own address.
   */
  TRUST_PROXY: trustProxy(),
  SESSION_TTL_SECONDS: positiveInt(7 * 24 * 3600),
  /**
   * How long a replica may reuse a resolved session (user + memberships) in memory; sign-out and
   * membership changes drop it on every replica at once (LISTEN/NOTIFY). 0 turns the cache off.
   */
  SESSION_CACHE_TTL_MS: z.coerce.number().int().min(0).max(10_000).default(2000),
  CRM_API_URL: httpUrl('http://127.0.0.1:4001'),
  WEBHOOK_INGEST_URL: httpUrl('http://127.0.0.1:4002'),
  AUTOMATION_URL: httpUrl('http://127.0.0.1:4003'),
  MCP_INGEST_URL: httpUrl('http://127.0.0.1:4004'),
  MIGRATE_URL: httpUrl('http://127.0.0.1:4005'),
  /** A downstream service that does not accept the connection within this is answered 503. */
  UPSTREAM_CONNECT_TIMEOUT_MS: positiveInt(2000),
  /** A downstream service that does not answer within this is answered 503. */
  UPSTREAM_TIMEOUT_MS: positiveInt(30_000),
  /** Browser origins allowed to call the API with credentials (comma-separated). */
  CORS_ORIGINS: originList,
  RATE_LIMIT_PLANS: planLimits,
  /** Per tenant, for a plan not listed in RATE_LIMIT_PLANS (specified: up to 1,000 per minute). */
  RATE_LIMIT_DEFAULT_PER_MINUTE: positiveInt(1000),
  /** Per client IP on public routes (forms). */
  RATE_LIMIT_PUBLIC_PER_MINUTE: positiveInt(60),
  /** Per client IP on sign-in and sign-up (brute-force guard). */
  RATE_LIMIT_SIGN_IN_PER_MINUTE: positiveInt(10),
  /**
   * Per account (docs/accounts.md): consecutive failed sign-ins for one email from any address,
   * and from one address, before each further attempt there waits a delay that doubles from
   * SIGN_IN_FIRST_DELAY_SECONDS up to SIGN_IN_MAX_DELAY_SECONDS.
   */
  SIGN_IN_FAILURES_PER_ACCOUNT: positiveInt(10),
  SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP: positiveInt(5),
  SIGN_IN_FIRST_DELAY_SECONDS: positiveInt(30),
  SIGN_IN_MAX_DELAY_SECONDS: positiveInt(900),
});

export type Config = z.infer<typeof configSchema>;
