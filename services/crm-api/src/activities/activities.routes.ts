import { findActivity, listActivities } from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { errors, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import {
  ACTIVITY_SORTABLE,
  activityFiltersSchema,
  activityIdSchema,
} from './activity-routes.schema';

/**
 * GET /api/crm/activities (paginated, filtered by lead, contact or deal) and
 * GET /api/crm/activities/:id. Activities are written by migrate; these routes read them.
 * `cursorSecret` signs the list's cursors (the internal token secret).
 */
export function activityRoutes(db: Kysely<Database>, cursorSecret: string): Router {
  const router = Router();

  router.get('/api/crm/activities', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, {
      sortable: ACTIVITY_SORTABLE,
      defaultSortBy: 'occurred_at',
    });
    const filters = validate(
      activityFiltersSchema,
      { lead_id: req.query.lead_id, contact_id: req.query.contact_id, deal_id: req.query.deal_id },
      'filters',
    );
    const result = await withTenant(db, tenantId, (trx) =>
      listActivities(trx, tenantId, page, filters, { secret: cursorSecret }),
    );
    res.json(result);
  });

  router.get('/api/crm/activities/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!activityIdSchema.safeParse(id).success) throw errors.notFound('Activity not found');
    const activity = await withTenant(db, tenantId, (trx) => findActivity(trx, tenantId, id));
    if (!activity) throw errors.notFound('Activity not found');
    sendSuccess(res, { activity });
  });

  return router;
}
