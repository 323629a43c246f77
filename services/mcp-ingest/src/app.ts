import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites, requireIdentity } from '@crm/shared/identity';
import { sessionPrefixesOf } from '@crm/shared/routes';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';

/**
 * mcp-ingest (:4004): MCP Streamable HTTP and key management come with their issue;
 * for now it serves its health, and its Session prefixes already refuse callers without the
 * gateway's identity header.
 * Builds the express app from its dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, _config: Config): Express {
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: { version: deps.version, checkDatabase: deps.pingDatabase },
    routes: (app) => {
      // Session routes (the route ownership table): only with the gateway's signed identity.
      app.use(
        sessionPrefixesOf('mcp-ingest'),
        requireIdentity(deps.internalTokenSecret),
        forbidViewerWrites(),
      );
    },
  });
}
