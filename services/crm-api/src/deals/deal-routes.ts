import { DEAL_STAGES, withTenant, type Database, type Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import { dateField, errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';

/** SPEC.md: `limit` defaults to 100; our documented maximum is 1,000. */
export const DEALS_DEFAULT_LIMIT = 100;
export const DEALS_MAX_LIMIT = 1000;

const stage = z.enum(DEAL_STAGES, { message: `stage must be one of: ${DEAL_STAGES.join(', ')}` });
const uuid = (what: string) => z.uuid({ message: `${what} must be an id (uuid)` });
const currencies = new Set(Intl.supportedValuesOf('currency'));

const listQuery = z.object({
  stage: stage.optional(),
  assigned_to: uuid('assigned_to').optional(),
  limit: z.coerce
    .number({ message: 'limit must be a whole number' })
    .int({ message: 'limit must be a whole number' })
    .min(1, { message: 'limit must be at least 1' })
    .max(DEALS_MAX_LIMIT, { message: `limit must be at most ${DEALS_MAX_LIMIT}` })
    .default(DEALS_DEFAULT_LIMIT),
});

const money = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d+(\.\d{1,2})?$/, { message: 'value must be a decimal with up to 2 places' }),
  ])
  .transform((v) => String(v))
  .refine((v) => /^\d{1,14}(\.\d{1,2})?$/.test(v) && Number(v) >= 0, {
    message: 'value must be a number >= 0 with up to 2 decimal places',
  });

const dealFields = {
  title: z
    .string({ error: 'title is required' })
    .trim()
    .min(1, { message: 'title is required' })
    .max(300, { message: 'title must be at most 300 characters' }),
  value: money,
  currency: z
    .string()
    .transform((c) => c.toUpperCase())
    .refine((c) => currencies.has(c), { message: 'currency must be an ISO 4217 code, e.g. USD' }),
  stage,
  assigned_to: uuid('assigned_to').nullable(),
  lead_id: uuid('lead_id').nullable(),
  contact_id: uuid('contact_id').nullable(),
  expected_close_date: dateField('expected_close_date').nullable(),
  custom_fields: z.record(z.string(), z.unknown()),
};

const createSchema = z.object({
  ...dealFields,
  value: dealFields.value.default('0'),
  currency: dealFields.currency.default('USD'),
  stage: stage.default('lead'),
  assigned_to: dealFields.assigned_to.optional(),
  lead_id: dealFields.lead_id.optional(),
  contact_id: dealFields.contact_id.optional(),
  expected_close_date: dealFields.expected_close_date.optional(),
  custom_fields: dealFields.custom_fields.default({}),
});
const updateSchema = z
  .object(dealFields)
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' });

const DEAL_COLUMNS = [
  'id',
  'title',
  'value',
  'currency',
  'stage',
  'assigned_to',
  'lead_id',
  'contact_id',
  'expected_close_date',
  'custom_fields',
  'created_by',
  'created_at',
  'updated_at',
] as const;

/** References must point inside the tenant: checked under RLS, so another tenant's ids look absent. */
async function checkReferences(
  trx: Trx,
  tenantId: string,
  refs: { assigned_to?: string | null; lead_id?: string | null; contact_id?: string | null },
): Promise<void> {
  if (refs.assigned_to) {
    const member = await trx
      .selectFrom('tenant_users')
      .select('user_id')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', refs.assigned_to)
      .executeTakeFirst();
    if (!member) throw errors.validation('assigned_to must be a member of this tenant');
  }
  if (refs.lead_id) {
    const lead = await trx
      .selectFrom('crm_leads')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', refs.lead_id)
      .executeTakeFirst();
    if (!lead) throw errors.validation('lead_id must be a lead of this tenant');
  }
  if (refs.contact_id) {
    const contact = await trx
      .selectFrom('crm_contacts')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', refs.contact_id)
      .executeTakeFirst();
    if (!contact) throw errors.validation('contact_id must be a contact of this tenant');
  }
}

function jsonFields<T extends { custom_fields?: Record<string, unknown> }>(input: T) {
  const { custom_fields, ...rest } = input;
  return {
    ...rest,
    ...(custom_fields !== undefined && { custom_fields: JSON.stringify(custom_fields) }),
  };
}

/** /api/crm/deals: list (SPEC.md `{ deals }`), create, read, update, delete. */
export function dealRoutes(db: Kysely<Database>, bodyLimitBytes: number): Router {
  const router = Router();
  router.use('/api/crm/deals', jsonBody(bodyLimitBytes));

  router.get('/api/crm/deals', async (req, res) => {
    const { tenantId } = identityOf(req);
    const query = validate(
      listQuery,
      { stage: req.query.stage, assigned_to: req.query.assigned_to, limit: req.query.limit },
      'query',
    );
    const deals = await withTenant(db, tenantId, (trx) => {
      let q = trx
        .selectFrom('crm_deals')
        .select([...DEAL_COLUMNS])
        .where('tenant_id', '=', tenantId);
      if (query.stage) q = q.where('stage', '=', query.stage);
      if (query.assigned_to) q = q.where('assigned_to', '=', query.assigned_to);
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
    });
    res.json({ deals });
  });

  router.post('/api/crm/deals', async (req, res) => {
    const { tenantId, userId } = identityOf(req);
    const input = validate(createSchema, req.body, 'deal');
    const deal = await withTenant(db, tenantId, async (trx) => {
      await checkReferences(trx, tenantId, input);
      const created = await trx
        .insertInto('crm_deals')
        .values({ ...jsonFields(input), tenant_id: tenantId, created_by: userId })
        .returning([...DEAL_COLUMNS])
        .executeTakeFirstOrThrow();
      await writeEvent(trx, {
        type: 'deal.created',
        tenant_id: tenantId,
        record: { module: 'deals', id: created.id },
        data: {
          title: created.title,
          value: created.value,
          currency: created.currency,
          stage: created.stage,
        },
      });
      return created;
    });
    sendSuccess(res, { deal }, { status: 201, message: 'Deal created' });
  });

  router.get('/api/crm/deals/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid('id').safeParse(id).success) throw errors.notFound('Deal not found');
    const deal = await withTenant(db, tenantId, (trx) =>
      trx
        .selectFrom('crm_deals')
        .select([...DEAL_COLUMNS])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    if (!deal) throw errors.notFound('Deal not found');
    sendSuccess(res, { deal });
  });

  router.patch('/api/crm/deals/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid('id').safeParse(id).success) throw errors.notFound('Deal not found');
    const change = validate(updateSchema, req.body, 'deal change');
    const deal = await withTenant(db, tenantId, async (trx) => {
      const before = await trx
        .selectFrom('crm_deals')
        .select(['stage'])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!before) throw errors.notFound('Deal not found');
      await checkReferences(trx, tenantId, change);
      const updated = await trx
        .updateTable('crm_deals')
        .set({ ...jsonFields(change), updated_at: sql`now()` })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning([...DEAL_COLUMNS])
        .executeTakeFirstOrThrow();
      if (change.stage && change.stage !== before.stage) {
        await writeEvent(trx, {
          type: 'deal.stage_changed',
          tenant_id: tenantId,
          record: { module: 'deals', id },
          data: { from: before.stage, to: updated.stage },
        });
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
      const deleted = await trx
        .deleteFrom('crm_deals')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      if (!deleted) throw errors.notFound('Deal not found');
      await writeEvent(trx, {
        type: 'deal.deleted',
        tenant_id: tenantId,
        record: { module: 'deals', id },
        data: {},
      });
    });
    sendSuccess(res, { id }, { message: 'Deal deleted' });
  });

  return router;
}
