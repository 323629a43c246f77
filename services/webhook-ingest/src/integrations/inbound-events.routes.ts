import { withSystemScope, withTenant } from '@crm/shared/db';
import { AppError, errors, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery, timeRangeSchema } from '@crm/shared/pagination';
import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';
import { canManageIntegrations, idParam } from './admin-rules';
import { replayDelivery } from './inbound-event-replay';
import {
  findInboundEvent,
  findInboundEventPayload,
  listInboundEvents,
  SORTABLE,
} from './inbound-events.repository';
import { filtersSchema } from './inbound-events.schema';

const NOT_FOUND = 'Inbound event not found';

/**
 * The tenant's ledger row with its payload: the row under the tenant's row-level security
 * first, then, only for a row found, its payload by that row's key in the system scope (the
 * payload table has no tenant column), so no tenant reaches another's payload. A row recorded
 * before the payload table carries its payload itself; one whose payload retention dropped has
 * raw_body and headers null.
 */
async function readInboundEvent(ctx: ReceiverContext, tenantId: string, id: string) {
  const found = await withTenant(ctx.db, tenantId, (trx) => findInboundEvent(trx, tenantId, id));
  if (!found) return undefined;
  const { payload_key: key, ...event } = found;
  const payload = await withSystemScope(ctx.db, (trx) =>
    findInboundEventPayload(trx, event.id, key),
  );
  return payload ? { ...event, ...payload } : event;
}

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
    const range = validate(timeRangeSchema, { from: req.query.from, to: req.query.to }, 'filters');
    const result = await withTenant(ctx.db, tenantId, (trx) =>
      listInboundEvents(trx, tenantId, page, filters, range, { secret: ctx.cursorSecret }),
    );
    res.json(result);
  });

  router.get('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const event = await readInboundEvent(ctx, tenantId, id);
    if (!event) throw errors.notFound(NOT_FOUND);
    sendSuccess(res, { event });
  });

  /*
   * Re-processes a delivery that failed after its signature was verified, from its stored raw
   * payload (docs/integrations.md). It claims the ledger row again exactly as the provider's
   * retry would, so it writes only while the row is still failed: a second re-processing, or
   * one after the retry succeeded, writes nothing. One that never passed verification
   * (accepted unverified, or skipped) is refused: nothing proves who sent its bytes.
   */
  router.post('/:id/reprocess', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, NOT_FOUND);
    const read = () => readInboundEvent(ctx, tenantId, id);
    const stored = await read();
    if (!stored) throw errors.notFound(NOT_FOUND);
    if (stored.verification !== 'verified') {
      throw errors.conflict(
        `Only a delivery whose signature was verified can be re-processed; this one was accepted ${stored.verification === 'skipped' ? 'with verification skipped' : 'unverified'}`,
        { verification: stored.verification },
      );
    }
    if (stored.outcome !== 'failed') {
      sendSuccess(
        res,
        { event: stored, reprocessed: false },
        { message: `The delivery is already ${stored.outcome}: nothing was written again` },
      );
      return;
    }
    if (stored.raw_body === null) {
      throw errors.conflict(
        'The delivery can no longer be re-processed: its payload is kept for a limited time (30 days by default) and has been removed',
        { receivedAt: stored.received_at },
      );
    }
    const recorded = await replayDelivery(ctx, tenantId, {
      ...stored,
      raw_body: stored.raw_body,
    }).catch((error: unknown) => {
      // The ledger row already says why (recordDelivery kept it as failed with the reason).
      if (error instanceof AppError) throw error;
      ctx.logger.warn({ err: error, inboundEventId: id }, 'Re-processing failed again');
      return undefined;
    });
    const event = (await read()) ?? stored;
    sendSuccess(
      res,
      { event, reprocessed: recorded !== undefined && !recorded.duplicate },
      {
        message:
          event.outcome === 'failed'
            ? `Re-processed, and it failed again: ${event.detail ?? 'no reason recorded'}`
            : recorded?.duplicate
              ? `The delivery is already ${event.outcome}: nothing was written again`
              : `Re-processed: ${event.outcome}`,
      },
    );
  });

  return router;
}
