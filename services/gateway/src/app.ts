import { createServiceApp } from '@crm/shared/http';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';

/**
 * The only public entry (:8080): sessions, tenant resolution and the proxy table come with the gateway issue; for now it serves its health.
 * Builds the express app from its dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, _config: Config): Express {
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: { version: deps.version, checkDatabase: deps.pingDatabase },
  });
}
