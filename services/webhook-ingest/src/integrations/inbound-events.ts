import { INBOUND_OUTCOMES, withTenant } from '@crm/shared/db';
import { errors, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import { canManageIntegrations, idParam } from './admin-rules';

const NOT_FOUND = 'Inbound event not found';
const SORTABLE = ['received_at', 'processed_at', 'provider', 'outcome'] as const;
// The list leaves the raw payload out: it can be large, and it is the audit view's to show.
const COLUMNS = [
  'id',
  'provider',
  'delivery_id',
  'event_type',
  'content_type',
  'verification',
  'outcome',
  'detail',
  'attempts',
  'received_at',
  'processed_at',
] as const;

const filtersSchema = z.object({
  provider: z
    .string({ message: 'provider must be given once' })
    .regex(/^[a-z0-9_]{1,64}$/, {
      message: 'provider must be a ledger provider key, e.g. email, storefront_a, payments_stripe',
    })
    .optional(),
  outcome: z
    .enum(INBOUND_OUTCOMES, { message: `outcome must be one of: ${INBOUND_OUTCOMES.join(', ')}` })
    .optional(),
});

/**
 * /api/integrations/inbound-events: the tenant's rows of the inbound delivery ledger. Row-level
 * security shows only rows resolved to this tenant; a delivery whose tenant was never resolved
 * (`unmatched`, tenant null) belongs to no tenant and is shown to none.
 *
 * Any member may list the ledger; the raw payload (GET /:id, the audit view) can carry
 * personal and payment data of the tenant's customers, so it is for owners and admins.
 */
export function inboundEventRoutes(ctx: ReceiverContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, { sortable: SORTABLE, defaultSortBy: 'received_at' });
    const filters = validate(
      filtersSchema,
      { provider: req.query.provider, outcome: req.query.outcome },
      'filters',
    );
    const result = await withTenant(ctx.db, tenantId, (trx) => {
      let query = trx
        .selectFrom('inbound_events')
        .select([...COLUMNS])
        .where('tenant_id', '=', tenantId);
      if (filters.provider) query = query.where('provider', '=', filters.provider);
      if (filters.outcome) query = query.where('outcome', '=', filters.outcome);
      return paginate(query, page, 'id');
    });
    res.json(result);
  });

  router.get('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const event = await withTenant(ctx.db, tenantId, (trx) =>
      trx
        .selectFrom('inbound_events')
        .select([...COLUMNS, 'raw_body'])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    if (!event) throw errors.notFound(NOT_FOUND);
    sendSuccess(res, { event });
  });

  return router;
}
