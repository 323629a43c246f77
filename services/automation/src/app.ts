import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites, requireIdentity } from '@crm/shared/identity';
import { sessionPrefixesOf } from '@crm/shared/routes';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import type { Config } from './config';
import { createEngine, secretBoxFor } from './engine/create-engine';
import { eventRoutes } from './events/events.routes';
import { automationRetention } from './retention/retention-sweeps';
import { runRoutes } from './runs/runs.routes';
import { workflowRoutes } from './workflows/workflows.routes';

/**
 * automation (:4003): workflows (CRUD, rotate-secret), their runs and test runs, and the
 * tenant's recent platform events (what workflows react to). Session routes
 * run with the identity the gateway signed, inside withTenant; viewers read only. The event
 * consumer is the service's worker (main.ts). Builds the express app from its dependencies;
 * does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, config: Config): Express {
  // Test runs send from the app itself, with their own limits; no connection outlives a
  // request, so nothing of the app's is left open when it stops.
  const { engine } = createEngine(deps, config, { keepAlive: false });
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: {
      version: deps.version,
      checkDatabase: deps.pingDatabase,
      checkRetention: automationRetention(config).healthCheck(deps.db),
    },
    readiness: { bus: deps.bus, isDraining: deps.isDraining },
    parseJson: false,
    routes: (app) => {
      // Session routes (the route ownership table): only with the gateway's signed identity.
      app.use(sessionPrefixesOf('automation'), requireIdentity(deps), forbidViewerWrites());
      app.use(
        workflowRoutes(deps.db, secretBoxFor(config, deps), {
          bodyLimitBytes: deps.bodyLimitBytes,
          allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
          cursorSecret: deps.internalTokenSecret,
        }),
      );
      app.use(runRoutes(deps.db, engine, deps.bodyLimitBytes, deps.internalTokenSecret));
      app.use(eventRoutes(deps.db, deps.internalTokenSecret));
    },
  });
}
