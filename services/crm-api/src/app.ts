import { createServiceApp } from '@crm/shared/http';
import { forbidViewerWrites, requireIdentity } from '@crm/shared/identity';
import { sessionPrefixesOf } from '@crm/shared/routes';
import type { AppDeps } from '@crm/shared/service';
import type { Express } from 'express';
import { activityRoutes } from './activities/activities.routes';
import type { Config } from './config';
import { contactRoutes } from './contacts/contacts.routes';
import { conversationRoutes } from './conversations/conversations.routes';
import { dealRoutes } from './deals/deals.routes';
import { exportRoutes } from './exports/exports.routes';
import { formRoutes } from './forms/forms.routes';
import { importRoutes } from './leads/import.routes';
import { leadRoutes } from './leads/leads.routes';
import { productRoutes } from './products/products.routes';
import { receiverRecordRoutes } from './receiver-records/receiver-records.routes';
import { crmApiRetention } from './retention/retention-sweeps';
import { timelineRoutes } from './timeline/timeline.routes';

/**
 * crm-api (:4001): lead import, leads, deals, contacts, products, activities, a lead's or
 * contact's timeline, the records the receivers store (conversations, orders, payments,
 * calls, email and network events), web forms and exports. Session routes run with
 * the identity the gateway signed, inside withTenant. Builds the express app from its
 * dependencies; does not listen (main.ts does).
 */
export function createApp(deps: AppDeps, config: Config): Express {
  return createServiceApp({
    logger: deps.logger,
    bodyLimitBytes: deps.bodyLimitBytes,
    health: {
      version: deps.version,
      checkDatabase: deps.pingDatabase,
      checkRetention: crmApiRetention(config).healthCheck(deps.db),
    },
    readiness: { bus: deps.bus, isDraining: deps.isDraining },
    // Each route parses its own body: the import route takes far larger ones than the rest.
    parseJson: false,
    routes: (app) => {
      // Session routes (the route ownership table): only with the gateway's signed identity.
      app.use(sessionPrefixesOf('crm-api'), requireIdentity(deps), forbidViewerWrites());
      app.use(
        importRoutes({
          db: deps.db,
          maxRows: config.IMPORT_MAX_ROWS,
          bodyLimitBytes: config.IMPORT_BODY_LIMIT_BYTES,
        }),
      );
      app.use(leadRoutes(deps.db, deps.bodyLimitBytes, deps.internalTokenSecret));
      app.use(dealRoutes(deps.db, deps.bodyLimitBytes, deps.internalTokenSecret));
      app.use(contactRoutes(deps.db, deps.bodyLimitBytes, deps.internalTokenSecret));
      app.use(productRoutes(deps.db, deps.bodyLimitBytes, deps.internalTokenSecret));
      app.use(activityRoutes(deps.db, deps.internalTokenSecret));
      // What the receivers and MCP store, read: conversations, orders, payments, calls, ...
      app.use(conversationRoutes(deps.db, deps.internalTokenSecret));
      app.use(receiverRecordRoutes(deps.db, deps.internalTokenSecret));
      app.use(timelineRoutes(deps.db));
      // A POST that only reads: forbidViewerWrites() lets viewers through (READ_ONLY_POST_PATHS).
      app.use(
        exportRoutes({
          db: deps.db,
          pool: deps.pool,
          logger: deps.logger,
          bodyLimitBytes: deps.bodyLimitBytes,
          maxConcurrent: config.EXPORT_MAX_CONCURRENT,
        }),
      );
      app.use(formRoutes(deps.db, deps.bodyLimitBytes, deps.internalTokenSecret));
    },
  });
}
