import { outboxHealthCheck } from '@crm/shared/events';
import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites } from '@crm/shared/identity';
import type { AppDeps } from '@crm/shared/service';
import { Router, type Express, type RequestHandler } from 'express';
import { apiDocsRoutes } from './api-docs/api-docs.routes';
import { authRoutes } from './auth/auth.routes';
import { serveConsole } from './console/serve-console';
import type { Config } from './config';
import { platformHealthHandler } from './health/platform-health';
import { invitationRoutes } from './invitations/invitations.routes';
import { memberRoutes } from './members/members.routes';
import { PROXY_TABLE, routeFor, type ProxyRoute, type ServiceName } from '@crm/shared/routes';
import { serviceProxy } from './proxy/service-proxy';
import { createRateLimits } from './rate-limit/limits';
import { createSignInFailures } from './rate-limit/sign-in-failures';
import { corsPolicy, securityHeaders } from './security/browser-policy';
import { refuseCrossSiteWrites } from './security/cross-site-guard';
import { requireTenantSession } from './auth/require-session';
import { SessionCache } from './tenancy/session-cache';
import { guardedDocumentFetcher, type DocumentFetcher } from './oauth/client-metadata-document';
import { consentRoutes } from './oauth/consent.routes';
import { authorizationServerMetadataRoutes } from './oauth/oauth-metadata.routes';
import {
  isOAuthPublicPath,
  OAUTH_PROTOCOL_PREFIX,
  oauthProtocolRoutes,
} from './oauth/oauth-protocol.routes';

/** What a test may swap in; production uses the defaults. */
export interface AppOverrides {
  /**
   * How Client ID Metadata Documents are fetched (default: through the SSRF guard). Tests serve
   * documents from this machine, which the guard refuses.
   */
  fetchClientDocument?: DocumentFetcher;
}

/**
 * The only public entry (:8080): sign-in and tenant resolution of its own, the public health probe,
 * and the proxy table (libs/shared/src/routes/proxy-table.ts) for everything else. Bodies are
 * parsed only on the gateway's own routes; proxied requests go on byte for byte.
 */
export function createApp(deps: AppDeps, config: Config, overrides: AppOverrides = {}): Express {
  const upstreams: Record<ServiceName, string> = {
    'crm-api': config.CRM_API_URL,
    'webhook-ingest': config.WEBHOOK_INGEST_URL,
    automation: config.AUTOMATION_URL,
    'mcp-ingest': config.MCP_INGEST_URL,
    migrate: config.MIGRATE_URL,
  };
  const health = { version: deps.version, checkDatabase: deps.pingDatabase };
  const limits = createRateLimits({
    pool: deps.pool,
    planLimits: config.RATE_LIMIT_PLANS,
    defaultTenantLimit: config.RATE_LIMIT_DEFAULT_PER_MINUTE,
    publicLimit: config.RATE_LIMIT_PUBLIC_PER_MINUTE,
    signInLimit: config.RATE_LIMIT_SIGN_IN_PER_MINUTE,
  });
  const sessions = new SessionCache(deps.pool, config.SESSION_CACHE_TTL_MS, deps.logger);
  const sessionChain = [
    requireTenantSession(deps.pool, sessions),
    limits.perTenant,
    forbidViewerWrites(),
  ];
  const guards: Record<ProxyRoute['auth'], RequestHandler[]> = {
    session: sessionChain,
    public: [limits.perIpPublic],
    'service-checked': [],
  };
  const proxies = Object.fromEntries(
    Object.entries(upstreams).map(([service, target]) => [
      service,
      serviceProxy({
        target,
        service,
        internalTokenSecret: deps.internalTokenSecret,
        connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
        timeoutMs: config.UPSTREAM_TIMEOUT_MS,
        logger: deps.logger,
      }),
    ]),
  ) as Record<ServiceName, RequestHandler>;

  const app = createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health,
    readiness: { bus: deps.bus, isDraining: deps.isDraining },
    parseJson: false,
    trustProxy: config.TRUST_PROXY,
    routes: (app) => {
      app.use(securityHeaders());
      app.use(
        corsPolicy(
          config.CORS_ORIGINS,
          (path) => routeFor(path)?.auth === 'public' || isOAuthPublicPath(path),
        ),
      );
      app.use(
        refuseCrossSiteWrites({
          allowedOrigins: config.CORS_ORIGINS,
          publicBaseUrl: config.PUBLIC_BASE_URL,
          ignoresSessionCookie: (path) => {
            const auth = routeFor(path)?.auth;
            return auth === 'public' || auth === 'service-checked' || isOAuthPublicPath(path);
          },
        }),
      );
      app.get(
        '/api/health',
        platformHealthHandler({
          ...health,
          checkEvents: outboxHealthCheck({ db: deps.db, bus: deps.bus }),
          services: upstreams,
        }),
      );
      app.use(apiDocsRoutes(config, limits.perIpPublic));
      app.use(
        '/api/auth/members',
        memberRoutes(deps.db, sessionChain, deps.bodyLimitBytes, sessions),
      );
      app.use('/api/auth/invitations', invitationRoutes(deps.db, deps.bodyLimitBytes, sessions));
      // The MCP OAuth authorization server: its metadata and protocol endpoints (public), and the
      // consent page's two routes (the signed-in user's).
      app.use(authorizationServerMetadataRoutes(config.PUBLIC_BASE_URL, limits.perIpPublic));
      app.use(
        OAUTH_PROTOCOL_PREFIX,
        limits.perIpPublic,
        oauthProtocolRoutes({
          db: deps.db,
          issuer: config.PUBLIC_BASE_URL,
          fetchDocument: overrides.fetchClientDocument ?? guardedDocumentFetcher(),
        }),
      );
      app.use(
        '/api/auth/oauth/requests',
        consentRoutes({
          db: deps.db,
          issuer: config.PUBLIC_BASE_URL,
          bodyLimitBytes: deps.bodyLimitBytes,
        }),
      );
      app.use(
        '/api/auth',
        authRoutes({
          db: deps.db,
          cookies: {
            secure: config.PUBLIC_BASE_URL.startsWith('https:'),
            sessionTtlSeconds: config.SESSION_TTL_SECONDS,
          },
          sessionTtlSeconds: config.SESSION_TTL_SECONDS,
          bodyLimitBytes: deps.bodyLimitBytes,
          signInRateLimit: limits.perIpSignIn,
          signInFailures: createSignInFailures(deps.pool, {
            perAccount: config.SIGN_IN_FAILURES_PER_ACCOUNT,
            perAccountAndAddress: config.SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP,
            firstDelaySeconds: config.SIGN_IN_FIRST_DELAY_SECONDS,
            maxDelaySeconds: config.SIGN_IN_MAX_DELAY_SECONDS,
          }),
          sessionCache: sessions,
        }),
      );
      const forwards = new Map(
        PROXY_TABLE.map((route) => [
          route,
          Router().use(...guards[route.auth], proxies[route.service]),
        ]),
      );
      // Mounted at the root (not at the prefix) so the service sees the full original path; the
      // route is looked up once per request, not once per table entry.
      app.use((req, res, next) => {
        const route = routeFor(req.path);
        const forward = route && forwards.get(route);
        if (forward) forward(req, res, next);
        else next();
      });
      // Last: what no route above answered may be the web console or one of its routes.
      app.use(serveConsole(config.CONSOLE_DIR));
    },
  });
  // The session cache's LISTEN connection is the gateway's own: it ends with the server, before
  // the pool and the database (else a stopping database cuts it: 'LISTEN connection lost').
  app.once('close', () => void sessions.close());
  return app;
}
