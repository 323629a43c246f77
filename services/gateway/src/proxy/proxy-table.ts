/**
 * DESIGN.md (Route ownership): which service owns which path, and what the gateway checks
 * before forwarding. The first matching row wins, so narrower prefixes come first.
 *
 * - `session`: a signed-in user with an active membership (SPEC.md Authentication 1); the
 *   request goes on with the signed identity header, under the tenant's rate limit.
 * - `public`: no authentication, a per-client-IP rate limit, open cross-origin.
 * - `service-checked`: the service verifies the caller itself (provider signature, bearer
 *   key, HMAC) on the exact bytes the caller sent.
 *
 * The gateway's own routes (/api/auth/*, /api/health) are not proxied.
 */
export type ServiceName = 'crm-api' | 'webhook-ingest' | 'automation' | 'mcp-ingest' | 'migrate';
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
  { prefixes: ['/api/automations'], service: 'automation', auth: 'session' },
  { prefixes: ['/api/mcp/keys'], service: 'mcp-ingest', auth: 'session' },
  { prefixes: ['/api/mcp'], service: 'mcp-ingest', auth: 'service-checked' },
  { prefixes: ['/api/migrate'], service: 'migrate', auth: 'service-checked' },
];

/** `/api/crm` matches `/api/crm` and `/api/crm/deals`, not `/api/crmx`. */
export function matchesPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function routeFor(path: string): ProxyRoute | undefined {
  return PROXY_TABLE.find((route) => route.prefixes.some((prefix) => matchesPrefix(path, prefix)));
}
