import { createServiceApp } from '@crm/shared/http';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';

/**
 * migrate (:4005): the HMAC-signed migration ingest comes with its issue; for now it serves its health.
 * Builds the express app from its dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, _config: Config): Express {
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: { version: deps.version, checkDatabase: deps.pingDatabase },
  });
}
