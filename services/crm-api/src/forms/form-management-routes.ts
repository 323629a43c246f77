import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf, requireRole } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { createFormSchema, updateFormSchema } from './form-definition';

const FORM_COLUMNS = [
  'id',
  'slug',
  'name',
  'fields',
  'enabled',
  'created_at',
  'updated_at',
] as const;
const SORTABLE = ['created_at', 'updated_at', 'name', 'slug'] as const;
const uuid = z.uuid();
const listFilters = z.object({
  enabled: z
    .enum(['true', 'false'], { message: 'enabled must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
});

const notFound = () => errors.notFound('Form not found');

/**
 * /api/crm/forms (Session, owner and admin only): create, list, read and update the tenant's
 * web forms. Disabling a form is `PATCH { enabled: false }`; its public URL then answers 404.
 */
export function formManagementRoutes(db: Kysely<Database>, bodyLimitBytes: number): Router {
  const router = Router();
  router.use('/api/crm/forms', requireRole('owner', 'admin'), jsonBody(bodyLimitBytes));

  router.post('/api/crm/forms', async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(createFormSchema, req.body, 'form');
    const form = await withTenant(db, tenantId, (trx) =>
      trx
        .insertInto('crm_web_forms')
        .values({
          tenant_id: tenantId,
          slug: input.slug,
          name: input.name,
          fields: JSON.stringify(input.fields),
          enabled: input.enabled,
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'slug']).doNothing())
        .returning([...FORM_COLUMNS])
        .executeTakeFirst(),
    );
    if (!form) {
      throw errors.alreadyExists(`A form with the slug ${input.slug} already exists`, {
        slug: input.slug,
      });
    }
    sendSuccess(res, { form }, { status: 201, message: 'Form created' });
  });

  router.get('/api/crm/forms', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, { sortable: SORTABLE, defaultSortBy: 'created_at' });
    const filters = validate(listFilters, { enabled: req.query.enabled }, 'filters');
    const result = await withTenant(db, tenantId, (trx) => {
      let query = trx
        .selectFrom('crm_web_forms')
        .select([...FORM_COLUMNS])
        .where('tenant_id', '=', tenantId);
      if (filters.enabled !== undefined) query = query.where('enabled', '=', filters.enabled);
      return paginate(query, page, 'id');
    });
    res.json(result);
  });

  router.get('/api/crm/forms/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid.safeParse(id).success) throw notFound();
    const form = await withTenant(db, tenantId, (trx) =>
      trx
        .selectFrom('crm_web_forms')
        .select([...FORM_COLUMNS])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    if (!form) throw notFound();
    sendSuccess(res, { form });
  });

  router.patch('/api/crm/forms/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid.safeParse(id).success) throw notFound();
    const change = validate(updateFormSchema, req.body, 'form change');
    const { fields, ...rest } = change;
    const form = await withTenant(db, tenantId, (trx) =>
      trx
        .updateTable('crm_web_forms')
        .set({
          ...rest,
          ...(fields !== undefined && { fields: JSON.stringify(fields) }),
          updated_at: sql`now()`,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning([...FORM_COLUMNS])
        .executeTakeFirst(),
    );
    if (!form) throw notFound();
    sendSuccess(res, { form }, { message: 'Form updated' });
  });

  return router;
}
