import { port, positiveInt, serviceEnv, trustProxy } from '@crm/shared/config';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { retentionVariables } from '@crm/shared/retention';

/** The console workspace's Vite build (services/console/dist), from src/ and from dist/ alike. */
export const DEFAULT_CONSOLE_DIR = join(__dirname, '../../console/dist');

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

const serviceUrl = (service: string, fallback: string) =>
  httpUrl(fallback).describe(
    `Where the proxy table sends ${service}'s routes. Under \`npm start\` an unset one follows ` +
      "the service's port variable.",
  );

export const configSchema = serviceEnv.extend({
  GATEWAY_PORT: port(8080).describe('Listening port.'),
  PUBLIC_BASE_URL: httpUrl('http://localhost:8080').describe(
    'The address users reach the gateway at; https makes the session cookie Secure. It is also ' +
      'the issuer of the MCP OAuth authorization server, so it must be what clients call.',
  ),
  TRUST_PROXY: trustProxy().describe(
    'The proxies in front of the gateway whose X-Forwarded-For and -Proto are believed: a hop ' +
      'count (1 behind a Kubernetes ingress) or their addresses and CIDR ranges, comma-separated. ' +
      'Unset: none, so per-IP limits count the connecting peer and no client picks its address.',
  ),
  SESSION_TTL_SECONDS: positiveInt(7 * 24 * 3600).describe('Session lifetime (7 days).'),
  SESSION_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(2000)
    .describe(
      'How long a replica may reuse a resolved session (user and memberships) in memory, at ' +
        'most 10000; 0 turns the cache off. Sign-out and membership changes drop it on every ' +
        'replica at once (LISTEN/NOTIFY; docs/accounts.md).',
    ),
  CRM_API_URL: serviceUrl('crm-api', 'http://127.0.0.1:4001'),
  WEBHOOK_INGEST_URL: serviceUrl('webhook-ingest', 'http://127.0.0.1:4002'),
  AUTOMATION_URL: serviceUrl('automation', 'http://127.0.0.1:4003'),
  MCP_INGEST_URL: serviceUrl('mcp-ingest', 'http://127.0.0.1:4004'),
  MIGRATE_URL: serviceUrl('migrate', 'http://127.0.0.1:4005'),
  UPSTREAM_CONNECT_TIMEOUT_MS: positiveInt(2000).describe(
    'A service that does not accept the connection within this many ms is answered 503.',
  ),
  UPSTREAM_TIMEOUT_MS: positiveInt(30_000).describe(
    'A service that does not answer within this many ms is answered 503.',
  ),
  CORS_ORIGINS: originList.describe(
    'Comma-separated browser origins allowed to call the API with credentials (CORS) and ' +
      'trusted for writes with the session cookie.',
  ),
  RATE_LIMIT_PLANS: planLimits.describe(
    'Requests per minute per tenant, by plan: `plan=limit` pairs, comma-separated.',
  ),
  RATE_LIMIT_DEFAULT_PER_MINUTE: positiveInt(1000).describe(
    'Requests per minute per tenant, for a plan not listed in RATE_LIMIT_PLANS.',
  ),
  RATE_LIMIT_PUBLIC_PER_MINUTE: positiveInt(60).describe(
    'Requests per minute per client IP on the public form routes.',
  ),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: positiveInt(10).describe(
    'Requests per minute per client IP on sign-in and sign-up (brute-force guard).',
  ),
  SIGN_IN_FAILURES_PER_ACCOUNT: positiveInt(10).describe(
    'Consecutive failed sign-ins for one account, from any address, before each further attempt ' +
      'waits (docs/accounts.md).',
  ),
  SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP: positiveInt(5).describe(
    'Consecutive failed sign-ins for one account from one address before that address waits.',
  ),
  SIGN_IN_FIRST_DELAY_SECONDS: positiveInt(30).describe(
    'The first wait once a sign-in failure limit is reached; each further attempt doubles it.',
  ),
  SIGN_IN_MAX_DELAY_SECONDS: positiveInt(900).describe(
    'The longest a sign-in wait grows to, so nobody is held longer after the last attempt.',
  ),
  CONSOLE_DIR: z
    .string()
    .trim()
    .optional()
    .transform((dir) => (dir ? resolve(dir) : DEFAULT_CONSOLE_DIR))
    .describe(
      'The directory of the built web console served at `/` (docs/console.md). Unset: the ' +
        "console workspace's build, `services/console/dist`, which `npm start` builds when it " +
        'is missing.',
    ),
  ...retentionVariables(
    'expiredSessions',
    'expiredOAuth',
    'unusedOAuthClients',
    'rateLimitCounters',
  ),
});

export type Config = z.infer<typeof configSchema>;
