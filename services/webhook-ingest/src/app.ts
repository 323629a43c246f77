import { configuredSecretBox, CONNECTION_SECRETS } from '@crm/shared/crypto';
import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites, requireIdentity } from '@crm/shared/identity';
import { sessionPrefixesOf } from '@crm/shared/routes';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';
import { integrationRoutes } from './integrations/integrations.routes';
import { RECEIVERS } from './providers';
import type { ReceiverContext } from './receivers/receiver-context';
import { webhookIngestRetention } from './retention/retention-sweeps';

/**
 * webhook-ingest (:4002): the inbound provider receivers (each reads the raw body and verifies
 * the provider's signature before any parse or write) and the integration admin views
 * (Session). Builds the express app from its dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, config: Config): Express {
  const context: ReceiverContext = {
    db: deps.db,
    logger: deps.logger,
    config,
    secrets: configuredSecretBox(CONNECTION_SECRETS, config, deps),
    bodyLimitBytes: deps.bodyLimitBytes,
    cursorSecret: deps.internalTokenSecret,
  };
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: {
      version: deps.version,
      checkDatabase: deps.pingDatabase,
      checkRetention: webhookIngestRetention(config).healthCheck(deps.db),
    },
    readiness: { bus: deps.bus, isDraining: deps.isDraining },
    // Receivers need the exact bytes; each route parses its own body.
    parseJson: false,
    routes: (app) => {
      // Session routes (the route ownership table): only with the gateway's signed identity.
      app.use(sessionPrefixesOf('webhook-ingest'), requireIdentity(deps), forbidViewerWrites());
      app.use(integrationRoutes(context));
      for (const receiver of RECEIVERS) app.use(receiver(context));
    },
  });
}
