import { withTenant, type Database } from '@crm/shared/db';
import { PLATFORM_EVENT_TYPES } from '@crm/shared/events';
import { sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { listEvents } from './events.repository';
import { EVENT_PAGE, eventFiltersSchema } from './events.schema';

/**
 * /api/events: the tenant's recent platform events (what its workflows can react to), read
 * from the outbox inside withTenant, so row-level security shows only the caller's tenant's.
 * Any member may read them (viewers too); there is nothing to write. Published rows are kept
 * for the outbox's retention (7 days by default), so the list is recent by nature.
 */
export function eventRoutes(db: Kysely<Database>, cursorSecret: string): Router {
  const router = Router();

  router.get('/api/events', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, EVENT_PAGE);
    const filters = validate(eventFiltersSchema, { type: req.query.type }, 'filters');
    res.json(
      await withTenant(db, tenantId, (trx) =>
        listEvents(trx, tenantId, page, filters, { secret: cursorSecret }),
      ),
    );
  });

  // The filter's choices, so a client need not keep its own copy of the list.
  router.get('/api/events/types', (_req, res) => {
    sendSuccess(res, { types: [...PLATFORM_EVENT_TYPES] });
  });

  return router;
}
