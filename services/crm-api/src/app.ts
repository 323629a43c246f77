import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites, requireIdentity } from '@crm/shared/identity';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';

/**
 * crm-api (:4001): lead import, deals, exports and public forms come with their issue;
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
      // Session routes (DESIGN.md proxy table): only with the gateway's signed identity.
      app.use(
        ['/api/v1/import', '/api/crm', '/api/exports'],
        requireIdentity(deps.internalTokenSecret),
        forbidViewerWrites(),
      );
    },
  });
}
