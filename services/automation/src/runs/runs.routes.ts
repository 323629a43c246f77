import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { Engine } from '../engine/engine';
import { workflowId } from '../workflows/workflows.routes';
import { findWorkflow } from '../workflows/workflows.repository';
import { uuid } from '../workflows/workflows.schema';
import { findRun, listRuns } from './runs.repository';
import { RUN_PAGE, testRunSchema } from './runs.schema';

/**
 * A workflow's runs (page helper, newest first, by page or cursor; `cursorSecret` signs the
 * cursors), one run with its steps, and the test run: POST /api/automations/workflows/:id/test
 * runs the workflow once now on a sample record.
 */
export function runRoutes(
  db: Kysely<Database>,
  engine: Engine,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/automations/workflows/:id/test', jsonBody(bodyLimitBytes));

  router.get('/api/automations/workflows/:id/runs', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const page = parseCursorPageQuery(req.query, RUN_PAGE);
    const result = await withTenant(db, tenantId, async (trx) => {
      if (!(await findWorkflow(trx, tenantId, id))) throw errors.notFound('Workflow not found');
      return listRuns(trx, tenantId, id, page, { secret: cursorSecret });
    });
    res.json(result);
  });

  router.get('/api/automations/runs/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!uuid('id').safeParse(id).success) throw errors.notFound('Run not found');
    const run = await withTenant(db, tenantId, (trx) => findRun(trx, tenantId, id));
    if (!run) throw errors.notFound('Run not found');
    sendSuccess(res, { run });
  });

  router.post('/api/automations/workflows/:id/test', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const input = validate(testRunSchema, req.body ?? {}, 'test run');
    const workflow = await withTenant(db, tenantId, (trx) => findWorkflow(trx, tenantId, id));
    if (!workflow) throw errors.notFound('Workflow not found');
    const run = await engine.runTest(tenantId, workflow, input);
    sendSuccess(res, { run }, { message: 'Test run finished' });
  });

  return router;
}
