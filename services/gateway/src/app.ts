import { createServiceApp, healthHandler } from '@crm/shared/http';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';

/**
 * The only public entry (:8080). Sessions, tenant resolution and the proxy table come with
 * the gateway issue; for now it serves the public health probe of SPEC.md and its own.
 * Builds the express app from its dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, _config: Config): Express {
  const health = { version: deps.version, checkDatabase: deps.pingDatabase };
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health,
    routes: (app) => {
      // SPEC.md: GET /api/health, Public.
      app.get('/api/health', healthHandler(health));
    },
  });
}
