import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf, requireRole } from '@crm/shared/identity';
import { parseCursorPageQuery, parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import {
  FORM_SORTABLE,
  SUBMISSION_SORTABLE,
  findForm,
  insertForm,
  listForms,
  listSubmissions,
  updateForm,
} from './forms.repository';
import { createFormSchema, formIdSchema, listFilters, updateFormSchema } from './forms.schema';
import { publicSubmitRoutes } from './public-submit.routes';

const notFound = () => errors.notFound('Form not found');

/**
 * Web forms: management under /api/crm/forms (a Session prefix: identity required, owner and
 * admin only) and the Public submission under /api/public/forms (no identity; the gateway
 * rate-limits it per IP and opens it to any origin). See docs/forms.md.
 */
export function formRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use(formManagementRoutes(db, bodyLimitBytes, cursorSecret));
  router.use(publicSubmitRoutes(db, bodyLimitBytes));
  router.get('/api/crm/forms/:id/submissions', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!formIdSchema.safeParse(id).success) throw notFound();
    const page = parsePageQuery(req.query, {
      sortable: SUBMISSION_SORTABLE,
      defaultSortBy: 'created_at',
    });
    const result = await withTenant(db, tenantId, async (trx) => {
      // An unknown (or another tenant's) form is a 404, not an empty page.
      if (!(await findForm(trx, tenantId, id))) throw notFound();
      return listSubmissions(trx, tenantId, id, page);
    });
    res.json(result);
  });

  return router;
}

/**
 * /api/crm/forms (Session, owner and admin only): create, list, read and update the tenant's
 * web forms, and list a form's submissions. Disabling a form is `PATCH { enabled: false }`; its
 * public URL then answers 404. The lists page by page or by cursor; `cursorSecret` signs the
 * cursors.
 */
export function formManagementRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/crm/forms', requireRole('owner', 'admin'), jsonBody(bodyLimitBytes));

  router.post('/api/crm/forms', async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(createFormSchema, req.body, 'form');
    const form = await withTenant(db, tenantId, (trx) => insertForm(trx, tenantId, input));
    if (!form) {
      throw errors.alreadyExists(`A form with the slug ${input.slug} already exists`, {
        slug: input.slug,
      });
    }
    sendSuccess(res, { form }, { status: 201, message: 'Form created' });
  });

  router.get('/api/crm/forms', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, {
      sortable: FORM_SORTABLE,
      defaultSortBy: 'created_at',
    });
    const filters = validate(listFilters, { enabled: req.query.enabled }, 'filters');
    const result = await withTenant(db, tenantId, (trx) =>
      listForms(trx, tenantId, page, filters, { secret: cursorSecret }),
    );
    res.json(result);
  });

  router.get('/api/crm/forms/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!formIdSchema.safeParse(id).success) throw notFound();
    const form = await withTenant(db, tenantId, (trx) => findForm(trx, tenantId, id));
    if (!form) throw notFound();
    sendSuccess(res, { form });
  });

  router.patch('/api/crm/forms/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!formIdSchema.safeParse(id).success) throw notFound();
    const change = validate(updateFormSchema, req.body, 'form change');
    const form = await withTenant(db, tenantId, (trx) => updateForm(trx, tenantId, id, change));
    if (!form) throw notFound();
    sendSuccess(res, { form }, { message: 'Form updated' });
  });

  return router;
}
