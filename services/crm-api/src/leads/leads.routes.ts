import {
  deleteLead,
  findLead,
  insertLead,
  isDuplicateEmail,
  leadEvent,
  listLeads,
  normalizeLead,
  updateLead,
} from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import {
  LEAD_SORTABLE,
  leadChangeSchema,
  leadFiltersSchema,
  leadIdSchema,
} from './lead-routes.schema';

const duplicateEmail = (email: string) =>
  errors.alreadyExists(`A lead with email ${email} already exists`);

/**
 * /api/crm/leads: the list (paginated by page or cursor, filtered), create, read, update and
 * delete one lead. `cursorSecret` signs the list's cursors (the internal token secret). Viewers
 * only read (forbidViewerWrites in app.ts).
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

  // One lead, by the rules and error texts of an import item (normalizeLead).
  router.post('/api/crm/leads', async (req, res) => {
    const { tenantId } = identityOf(req);
    const normalized = normalizeLead(req.body);
    if (!normalized.ok) throw errors.validation(normalized.error);
    const lead = await withTenant(db, tenantId, async (trx) => {
      const created = await insertLead(trx, tenantId, normalized.lead);
      if (!created) throw duplicateEmail(normalized.lead.email);
      await writeEvent(trx, leadEvent('lead.created', tenantId, created));
      return created;
    });
    sendSuccess(res, { lead }, { status: 201, message: 'Lead created' });
  });

  router.get('/api/crm/leads/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    if (!leadIdSchema.safeParse(req.params.id).success) throw errors.notFound('Lead not found');
    const lead = await withTenant(db, tenantId, (trx) => findLead(trx, tenantId, req.params.id));
    if (!lead) throw errors.notFound('Lead not found');
    sendSuccess(res, { lead });
  });

  router.patch('/api/crm/leads/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!leadIdSchema.safeParse(id).success) throw errors.notFound('Lead not found');
    const change = validate(leadChangeSchema, req.body, 'lead change');
    const lead = await withTenant(db, tenantId, async (trx) => {
      const updated = await updateLead(trx, tenantId, id, change).catch((err: unknown) => {
        if (isDuplicateEmail(err)) throw duplicateEmail(change.email as string);
        throw err;
      });
      if (!updated) throw errors.notFound('Lead not found');
      await writeEvent(trx, leadEvent('lead.updated', tenantId, updated));
      return updated;
    });
    sendSuccess(res, { lead }, { message: 'Lead updated' });
  });

  router.delete('/api/crm/leads/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!leadIdSchema.safeParse(id).success) throw errors.notFound('Lead not found');
    await withTenant(db, tenantId, async (trx) => {
      const deleted = await deleteLead(trx, tenantId, id);
      if (!deleted) throw errors.notFound('Lead not found');
      await writeEvent(trx, leadEvent('lead.deleted', tenantId, deleted));
    });
    sendSuccess(res, { id }, { message: 'Lead deleted' });
  });

  return router;
}
