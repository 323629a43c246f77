import { leadFilterFields, whereLeadFilters } from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { z } from 'zod';

const SORTABLE = [
  'created_at',
  'updated_at',
  'email',
  'first_name',
  'last_name',
  'status',
  'source',
] as const;
const filtersSchema = z.object(leadFilterFields);
const uuid = z.uuid();

const LEAD_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'source',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

/** GET /api/crm/leads (paginated, filtered) and GET /api/crm/leads/:id. */
export function leadRoutes(db: Kysely<Database>, bodyLimitBytes: number): Router {
  const router = Router();
  router.use('/api/crm/leads', jsonBody(bodyLimitBytes));

  router.get('/api/crm/leads', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, { sortable: SORTABLE, defaultSortBy: 'created_at' });
    const filters = validate(
      filtersSchema,
      { status: req.query.status, source: req.query.source, q: req.query.q },
      'filters',
    );
    const result = await withTenant(db, tenantId, (trx) => {
      let query = trx
        .selectFrom('crm_leads')
        .select([...LEAD_COLUMNS])
        .where('tenant_id', '=', tenantId);
      query = whereLeadFilters(query, filters);
      return paginate(query, page, 'id');
    });
    res.json(result);
  });

  router.get('/api/crm/leads/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    if (!uuid.safeParse(req.params.id).success) throw errors.notFound('Lead not found');
    const lead = await withTenant(db, tenantId, (trx) =>
      trx
        .selectFrom('crm_leads')
        .select([...LEAD_COLUMNS])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', req.params.id)
        .executeTakeFirst(),
    );
    if (!lead) throw errors.notFound('Lead not found');
    sendSuccess(res, { lead });
  });

  return router;
}
