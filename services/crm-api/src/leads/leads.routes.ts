import { findLead, listLeads } from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { LEAD_SORTABLE, leadFiltersSchema, leadIdSchema } from './leads.schema';

/**
 * GET /api/crm/leads (paginated by page or cursor, filtered) and GET /api/crm/leads/:id.
 * `cursorSecret` signs the list's cursors (the internal token secret).
 */
export function leadRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/crm/leads', jsonBody(bodyLimitBytes));

  router.get('/api/crm/leads', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, {
      sortable: LEAD_SORTABLE,
      defaultSortBy: 'created_at',
    });
    const filters = validate(
      leadFiltersSchema,
      { status: req.query.status, source: req.query.source, q: req.query.q },
      'filters',
    );
    const result = await withTenant(db, tenantId, (trx) =>
      listLeads(trx, tenantId, page, filters, { secret: cursorSecret }),
    );
    res.json(result);
  });

  router.get('/api/crm/leads/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    if (!leadIdSchema.safeParse(req.params.id).success) throw errors.notFound('Lead not found');
    const lead = await withTenant(db, tenantId, (trx) => findLead(trx, tenantId, req.params.id));
    if (!lead) throw errors.notFound('Lead not found');
    sendSuccess(res, { lead });
  });

  return router;
}
