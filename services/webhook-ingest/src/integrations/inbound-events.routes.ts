import { withTenant } from '@crm/shared/db';
import { errors, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { canManageIntegrations, idParam } from './admin-rules';
import { findInboundEvent, listInboundEvents, SORTABLE } from './inbound-events.repository';
import { filtersSchema } from './inbound-events.schema';

const NOT_FOUND = 'Inbound event not found';

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
    const page = parseCursorPageQuery(req.query, {
      sortable: SORTABLE,
      defaultSortBy: 'received_at',
    });
    const filters = validate(
      filtersSchema,
      { provider: req.query.provider, outcome: req.query.outcome },
      'filters',
    );
    const result = await withTenant(ctx.db, tenantId, (trx) =>
      listInboundEvents(trx, tenantId, page, filters, { secret: ctx.cursorSecret }),
    );
    res.json(result);
  });

  router.get('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const event = await withTenant(ctx.db, tenantId, (trx) => findInboundEvent(trx, tenantId, id));
    if (!event) throw errors.notFound(NOT_FOUND);
    sendSuccess(res, { event });
  });

  return router;
}
