import { createServiceApp } from '@crm/shared/http';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';
import { ingestRoutes } from './ingest/ingest.routes';
import { migrateRetention } from './retention/retention-sweeps';

/**
 * migrate (:4005): the HMAC-signed migration ingest (specified: a signature over method, path,
 * timestamp, nonce and raw body). Its caller is a migration tool, not a user session: the route
 * checks the signature on the raw bytes itself. Builds the express app from its dependencies; does
 * not listen (main.ts does).
 */
export function createApp(deps: AppDeps, config: Config): Express {
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: {
      version: deps.version,
      checkDatabase: deps.pingDatabase,
      checkRetention: migrateRetention(config).healthCheck(deps.db),
    },
    readiness: { bus: deps.bus, isDraining: deps.isDraining },
    // The signature covers the exact bytes: the route reads its own raw body.
    parseJson: false,
    routes: (app) => {
      app.use(
        ingestRoutes({
          db: deps.db,
          logger: deps.logger,
          secret: config.SVC_MIGRATE_SIGNING_SECRET,
          maxRecords: config.MIGRATE_MAX_RECORDS,
          bodyLimitBytes: config.MIGRATE_BODY_LIMIT_BYTES,
        }),
      );
    },
  });
}
