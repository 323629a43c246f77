import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites, requireIdentity } from '@crm/shared/identity';
import { sessionPrefixesOf } from '@crm/shared/routes';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';
import { connectionRoutes } from './connections/connections.routes';
import { keyRoutes } from './keys/keys.routes';
import { mcpRoutes } from './mcp/mcp.routes';
import { resourceMetadataRoutes } from './mcp/resource-metadata';

/**
 * mcp-ingest (:4004): MCP Streamable HTTP for AI agents (POST /api/mcp, an MCP key or an OAuth
 * access token, checked here; the protected resource metadata that says where to get a token,
 * public), the keys' management (Session, /api/mcp/keys) and the OAuth connections' (Session,
 * /api/mcp/connections).
 * Builds the express app from its dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, config: Config): Express {
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: { version: deps.version, checkDatabase: deps.pingDatabase },
    readiness: { bus: deps.bus, isDraining: deps.isDraining },
    // Each route parses its own body (the MCP route after the bearer check).
    parseJson: false,
    routes: (app) => {
      // Session routes (the route ownership table): only with the gateway's signed identity.
      app.use(sessionPrefixesOf('mcp-ingest'), requireIdentity(deps), forbidViewerWrites());
      app.use(keyRoutes(deps.db, deps.bodyLimitBytes));
      app.use(connectionRoutes(deps.db));
      app.use(resourceMetadataRoutes(config.PUBLIC_BASE_URL));
      app.use(
        mcpRoutes(deps.db, deps.logger, {
          bodyLimitBytes: config.MCP_BODY_LIMIT_BYTES,
          maxRecordsPerRequest: config.MCP_MAX_RECORDS_PER_REQUEST,
          publicBaseUrl: config.PUBLIC_BASE_URL,
          // The list cursors are signed as crm-api's are (the internal token secret).
          cursorSecret: deps.internalTokenSecret,
        }),
      );
    },
  });
}
