import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import {
  contactExists,
  dealChangeSchema,
  dealCreatedEvent,
  dealDeletedEvent,
  dealInputSchema,
  dealStageChangedEvent,
  deleteDeal,
  findDeal,
  insertDeal,
  isTenantMember,
  leadExists,
  listDeals,
  lockDealStage,
  updateDeal,
} from '@crm/records';
import { errors, jsonBody, sendSuccess, uuid, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { listQuery } from './deal-routes.schema';

/** References must point inside the tenant: checked under RLS, so another tenant's ids look absent. */
async function checkReferences(
  trx: Trx,
  tenantId: string,
  refs: { assigned_to?: string | null; lead_id?: string | null; contact_id?: string | null },
): Promise<void> {
  if (refs.assigned_to && !(await isTenantMember(trx, tenantId, refs.assigned_to))) {
    throw errors.validation('assigned_to must be a member of this tenant');
  }
  if (refs.lead_id && !(await leadExists(trx, tenantId, refs.lead_id))) {
    throw errors.validation('lead_id must be a lead of this tenant');
  }
  if (refs.contact_id && !(await contactExists(trx, tenantId, refs.contact_id))) {
    throw errors.validation('contact_id must be a contact of this tenant');
  }
}

/**
 * /api/crm/deals: list (the specified legacy `{ deals }`, with `nextCursor` for the deals after
 * them), create, read, update, delete. `cursorSecret` signs the list's cursors.
 */
export function dealRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/crm/deals', jsonBody(bodyLimitBytes));

  router.get('/api/crm/deals', async (req, res) => {
    const { tenantId } = identityOf(req);
    const query = validate(
      listQuery,
      {
        stage: req.query.stage,
        assigned_to: req.query.assigned_to,
        lead_id: req.query.lead_id,
        limit: req.query.limit,
        cursor: req.query.cursor,
      },
      'query',
    );
    const { items, nextCursor } = await withTenant(db, tenantId, (trx) =>
      listDeals(trx, tenantId, query, { secret: cursorSecret }),
    );
    res.json({ deals: items, nextCursor });
  });

  router.post('/api/crm/deals', async (req, res) => {
    const { tenantId, userId } = identityOf(req);
    const input = validate(dealInputSchema, req.body, 'deal');
    const deal = await withTenant(db, tenantId, async (trx) => {
      await checkReferences(trx, tenantId, input);
      const created = await insertDeal(trx, tenantId, userId, input);
      await writeEvent(trx, dealCreatedEvent(tenantId, created));
      return created;
    });
    sendSuccess(res, { deal }, { status: 201, message: 'Deal created' });
  });

  router.get('/api/crm/deals/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid('id').safeParse(id).success) throw errors.notFound('Deal not found');
    const deal = await withTenant(db, tenantId, (trx) => findDeal(trx, tenantId, id));
    if (!deal) throw errors.notFound('Deal not found');
    sendSuccess(res, { deal });
  });

  router.patch('/api/crm/deals/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid('id').safeParse(id).success) throw errors.notFound('Deal not found');
    const change = validate(dealChangeSchema, req.body, 'deal change');
    const deal = await withTenant(db, tenantId, async (trx) => {
      const before = await lockDealStage(trx, tenantId, id);
      if (!before) throw errors.notFound('Deal not found');
      await checkReferences(trx, tenantId, change);
      const updated = await updateDeal(trx, tenantId, id, change);
      if (change.stage && change.stage !== before.stage) {
        await writeEvent(
          trx,
          dealStageChangedEvent(tenantId, id, { from: before.stage, to: updated.stage }),
        );
      }
      return updated;
    });
    sendSuccess(res, { deal }, { message: 'Deal updated' });
  });

  router.delete('/api/crm/deals/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid('id').safeParse(id).success) throw errors.notFound('Deal not found');
    await withTenant(db, tenantId, async (trx) => {
      if (!(await deleteDeal(trx, tenantId, id))) throw errors.notFound('Deal not found');
      await writeEvent(trx, dealDeletedEvent(tenantId, id));
    });
    sendSuccess(res, { id }, { message: 'Deal deleted' });
  });

  return router;
}
