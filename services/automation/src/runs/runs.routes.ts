import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, uuid, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { findEvent } from '../events/events.repository';
import { workflowId } from '../workflows/workflows.routes';
import { findWorkflow } from '../workflows/workflows.repository';
import { planReplay } from './replay-plan';
import type { RunStarter } from './run-starter';
import { findRun, findRunForReplay, listRuns } from './runs.repository';
import { RUN_PAGE, replaySchema, runFilterSchema, testRunSchema } from './runs.schema';

const runNotFound = () => errors.notFound('Run not found');

/** A path id that is not a uuid names no run: 404, as another tenant's would be. */
function runId(id: string): string {
  if (!uuid('id').safeParse(id).success) throw runNotFound();
  return id;
}

/**
 * The run history: a workflow's runs and the runs of all workflows (page helper, newest first,
 * by page or cursor, filtered by status and start time; `cursorSecret` signs the cursors), one
 * run with its steps and replays, the test run (POST /api/automations/workflows/:id/test runs
 * the workflow once now on a sample record, or on one of the tenant's recent events) and the replay (POST /api/automations/runs/:id/
 * replay sends a failed run's failed steps, or one failed step, again as a new linked run).
 */
export function runRoutes(
  db: Kysely<Database>,
  engine: RunStarter,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/automations/workflows/:id/test', jsonBody(bodyLimitBytes));
  router.use('/api/automations/runs/:id/replay', jsonBody(bodyLimitBytes));

  router.get('/api/automations/workflows/:id/runs', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const page = parseCursorPageQuery(req.query, RUN_PAGE);
    const filter = validate(runFilterSchema, filterOf(req.query), 'run filters');
    const result = await withTenant(db, tenantId, async (trx) => {
      if (!(await findWorkflow(trx, tenantId, id))) throw errors.notFound('Workflow not found');
      return listRuns(trx, tenantId, id, filter, page, { secret: cursorSecret });
    });
    res.json(result);
  });

  router.get('/api/automations/runs', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, RUN_PAGE);
    const filter = validate(runFilterSchema, filterOf(req.query), 'run filters');
    res.json(
      await withTenant(db, tenantId, (trx) =>
        listRuns(trx, tenantId, undefined, filter, page, { secret: cursorSecret }),
      ),
    );
  });

  router.get('/api/automations/runs/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = runId(req.params.id);
    const run = await withTenant(db, tenantId, (trx) => findRun(trx, tenantId, id));
    if (!run) throw runNotFound();
    sendSuccess(res, { run });
  });

  router.post('/api/automations/runs/:id/replay', async (req, res) => {
    const { tenantId, userId } = identityOf(req);
    const id = runId(req.params.id);
    const input = validate(replaySchema, req.body ?? {}, 'replay');
    const found = await withTenant(db, tenantId, async (trx) => {
      const source = await findRunForReplay(trx, tenantId, id);
      if (!source) throw runNotFound();
      // A replay of a replay sends the first run's requests: same ids, same bodies.
      const original = source.run.replay_of
        ? await findRunForReplay(trx, tenantId, source.run.replay_of)
        : source;
      const workflow = await findWorkflow(trx, tenantId, source.run.workflow_id);
      return { source, original, workflow };
    });
    const { source, original, workflow } = found;
    if (!original || !workflow) throw runNotFound();
    const plan = planReplay(source, input, workflow.nodes.length);
    const run = await engine.replay(
      tenantId,
      workflow,
      { run: original.run, context: plan.context },
      plan.positions,
      userId,
    );
    sendSuccess(res, { run }, { status: 201, message: 'Replay finished' });
  });

  router.post('/api/automations/workflows/:id/test', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = workflowId(req.params.id);
    const { eventId, ...sample } = validate(testRunSchema, req.body ?? {}, 'test run');
    const { workflow, event } = await withTenant(db, tenantId, async (trx) => ({
      workflow: await findWorkflow(trx, tenantId, id),
      event: eventId ? await findEvent(trx, tenantId, eventId) : undefined,
    }));
    if (!workflow) throw errors.notFound('Workflow not found');
    if (eventId && !event) throw errors.notFound('Event not found');
    const run = event
      ? await engine.runTestOnEvent(workflow, event)
      : await engine.runTest(tenantId, workflow, sample);
    sendSuccess(res, { run }, { message: 'Test run finished' });
  });

  return router;
}

function filterOf(query: Record<string, unknown>) {
  return { status: query.status, from: query.from, to: query.to };
}
