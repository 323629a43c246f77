import type { Database } from '@crm/shared/db';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { formManagementRoutes } from './form-management-routes';
import { publicSubmitRoute } from './public-submit-route';

/**
 * Web forms: management under /api/crm/forms (a Session prefix: identity required, owner and
 * admin only) and the Public submission under /api/public/forms (no identity; the gateway
 * rate-limits it per IP and opens it to any origin). See docs/forms.md.
 */
export function formRoutes(db: Kysely<Database>, bodyLimitBytes: number): Router {
  const router = Router();
  router.use(formManagementRoutes(db, bodyLimitBytes));
  router.use(publicSubmitRoute(db, bodyLimitBytes));
  return router;
}
