/**
 * Route ownership, written once: which service owns which path, and what the gateway checks
 * before forwarding. The gateway proxies by it, each service derives the prefixes it guards
 * from it (`sessionPrefixesOf`), and a test fails when a service registers a route under a
 * prefix this table does not give it. The first matching row wins, so narrower prefixes come
 * first.
 *
 * - `session`: a signed-in user with an active membership (specified: else 401 or 403); the
 *   request goes on with the signed identity header, under the tenant's rate limit.
 * - `public`: no authentication, a per-client-IP rate limit, open cross-origin.
 * - `service-checked`: the service verifies the caller itself (provider signature, bearer
 *   key, HMAC) on the exact bytes the caller sent.
 *
 * The gateway's own routes (`GATEWAY_PREFIXES`) are not proxied. Any other path outside `/api`
 * (and the probes) is the web console's: the gateway answers it last, with the console's files
 * or its page (services/gateway/src/console/serve-console.ts).
 */
export type ServiceName = 'crm-api' | 'webhook-ingest' | 'automation' | 'mcp-ingest' | 'migrate';
/** Every service that serves public paths: the five behind the proxy and the gateway itself. */
export type RouteOwner = ServiceName | 'gateway';
export type RouteAuth = 'session' | 'public' | 'service-checked';

export interface ProxyRoute {
  prefixes: string[];
  service: ServiceName;
  auth: RouteAuth;
}

export const PROXY_TABLE: readonly ProxyRoute[] = [
  { prefixes: ['/api/v1/import', '/api/crm', '/api/exports'], service: 'crm-api', auth: 'session' },
  { prefixes: ['/api/public/forms'], service: 'crm-api', auth: 'public' },
  {
    prefixes: [
      '/api/webhooks',
      '/api/messaging/webhooks',
      '/api/communications/webhooks',
      '/api/commerce/webhook',
      '/api/payments/webhook',
    ],
    service: 'webhook-ingest',
    auth: 'service-checked',
  },
  { prefixes: ['/api/integrations'], service: 'webhook-ingest', auth: 'session' },
  { prefixes: ['/api/automations', '/api/events'], service: 'automation', auth: 'session' },
  { prefixes: ['/api/mcp/keys', '/api/mcp/connections'], service: 'mcp-ingest', auth: 'session' },
  // The MCP server checks its own credentials (a key or an OAuth access token) and says where
  // to get one (RFC 9728 protected resource metadata, public).
  { prefixes: ['/api/mcp'], service: 'mcp-ingest', auth: 'service-checked' },
  { prefixes: ['/.well-known/oauth-protected-resource'], service: 'mcp-ingest', auth: 'public' },
  { prefixes: ['/api/migrate'], service: 'migrate', auth: 'service-checked' },
];

/** The gateway's own public paths (sign-in, sessions, members; the platform health). */
export const GATEWAY_PREFIXES: readonly string[] = [
  '/api/auth',
  '/api/health',
  // The API reference: the OpenAPI document and the endpoint browser.
  '/api/openapi.json',
  '/api-docs',
  // The MCP OAuth authorization server: its metadata (RFC 8414) and endpoints.
  '/.well-known/oauth-authorization-server',
  '/api/oauth',
];

/** The path prefixes the table gives `service`, in table order. */
export function prefixesOf(service: RouteOwner): string[] {
  if (service === 'gateway') return [...GATEWAY_PREFIXES];
  return PROXY_TABLE.filter((route) => route.service === service).flatMap((r) => r.prefixes);
}

/**
 * The prefixes of `service` the gateway forwards only with a session (and the signed identity
 * header): the ones the service guards with requireIdentity().
 */
export function sessionPrefixesOf(service: ServiceName): string[] {
  return PROXY_TABLE.filter(
    (route) => route.service === service && route.auth === 'session',
  ).flatMap((route) => route.prefixes);
}

/** Who serves `path` publicly: the gateway itself, the service the table sends it to, or none. */
export function ownerOf(path: string): RouteOwner | undefined {
  if (GATEWAY_PREFIXES.some((prefix) => matchesPrefix(path, prefix))) return 'gateway';
  return routeFor(path)?.service;
}

/** `/api/crm` matches `/api/crm` and `/api/crm/deals`, not `/api/crmx`. */
export function matchesPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function routeFor(path: string): ProxyRoute | undefined {
  return PROXY_TABLE.find((route) => route.prefixes.some((prefix) => matchesPrefix(path, prefix)));
}
