import type { Trx, WorkflowRunsTable } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import type { Run, RunFilter, RunListItem, RunWithSteps, Step } from './runs.schema';

const RUN_COLUMNS = [
  'id',
  'workflow_id',
  'event_id',
  'event_type',
  'module',
  'record_id',
  'is_test',
  'status',
  'started_at',
  'finished_at',
  'replay_of',
  'replayed_by',
] as const;
/** Replays listed with a run (a person replays a run a few times at most). */
export const MAX_REPLAYS_SHOWN = 20;
type RunRow = Pick<Selectable<WorkflowRunsTable>, (typeof RUN_COLUMNS)[number]>;

function renderRun(row: RunRow): Run {
  return {
    ...row,
    started_at: new Date(row.started_at).toISOString(),
    finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

export interface NewRun {
  workflowId: string;
  eventId: string | null;
  eventType: string;
  module: string;
  recordId: string;
  isTest: boolean;
  /** The record's fields and the event as the run sees them: what a replay sends again. */
  context: unknown;
  /** A replay: the first run of the chain it replays, and who asked. */
  replay?: { of: string; by: string };
}

/**
 * Records runs as `running`, one statement for all of them; a run whose (workflow, event) is
 * already recorded (a redelivered event) is skipped. Returns the new runs' ids by workflow.
 */
export async function recordRuns(
  trx: Trx,
  tenantId: string,
  runs: NewRun[],
): Promise<Map<string, string>> {
  if (runs.length === 0) return new Map();
  const rows = await trx
    .insertInto('workflow_runs')
    .values(
      runs.map((r) => ({
        tenant_id: tenantId,
        workflow_id: r.workflowId,
        event_id: r.eventId,
        event_type: r.eventType,
        module: r.module,
        record_id: r.recordId,
        is_test: r.isTest,
        context: JSON.stringify(r.context),
        replay_of: r.replay?.of ?? null,
        replayed_by: r.replay?.by ?? null,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['workflow_id', 'event_id']).where('event_id', 'is not', null).doNothing(),
    )
    .returning(['id', 'workflow_id'])
    .execute();
  return new Map(rows.map((row) => [row.workflow_id, row.id]));
}

/** Writes a finished run's steps (one statement) and its final status. */
export async function finishRun(
  trx: Trx,
  tenantId: string,
  runId: string,
  steps: Step[],
): Promise<void> {
  if (steps.length > 0) {
    await trx
      .insertInto('workflow_run_steps')
      .values(steps.map((step) => ({ ...step, run_id: runId, tenant_id: tenantId })))
      .execute();
  }
  await trx
    .updateTable('workflow_runs')
    .set({
      status: steps.some((step) => step.status === 'failed') ? 'failed' : 'success',
      finished_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', runId)
    .execute();
}

/**
 * What runs may be sorted by: started_at (NOT NULL). One workflow's runs read
 * workflow_runs_by_workflow `(tenant_id, workflow_id, started_at, id)` (migration 0023); the
 * history across workflows reads workflow_runs_by_started `(tenant_id, started_at, id)`, or
 * workflow_runs_by_status `(tenant_id, status, started_at, id)` when filtered by status
 * (migration 0028). A `started_at` range is one range of each.
 */
const RUN_SORT_KEYS = {
  started_at: { expression: sql`workflow_runs.started_at`, type: 'timestamptz' },
} satisfies Record<string, SortKey>;

/**
 * A page of the tenant's runs, of one workflow or of all, filtered by status and start time, by
 * page or by cursor (the shared keyset helper). The workflow and the filters are bound into the
 * cursor, so a cursor of one workflow's runs (or of other filters) is refused by another list.
 */
export async function listRuns(
  trx: Trx,
  tenantId: string,
  workflowId: string | undefined,
  filter: RunFilter,
  page: CursorPageQuery<string>,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<RunListItem>> {
  // Each run with its workflow's name, whatever the number of workflows: a lookup by the
  // workflow's primary key for each row the page reads, and none for the rows its count reads
  // (the count drops the select list). A subquery, not a join: with a join the planner chose,
  // for a cursor page it expected to be small, a merge join that sorted the page's rows
  // instead of reading them in the index's order (the plan test pins the order). Every run
  // has its workflow: the foreign key deletes runs with it.
  let query = trx
    .selectFrom('workflow_runs')
    .select(RUN_COLUMNS)
    .select((eb) =>
      eb
        .selectFrom('automation_workflows as workflow')
        .select('workflow.name')
        .whereRef('workflow.id', '=', 'workflow_runs.workflow_id')
        .as('workflow_name'),
    )
    .where('workflow_runs.tenant_id', '=', tenantId);
  if (workflowId) query = query.where('workflow_runs.workflow_id', '=', workflowId);
  if (filter.status) query = query.where('workflow_runs.status', '=', filter.status);
  if (filter.from) query = query.where('workflow_runs.started_at', '>=', filter.from);
  if (filter.to) query = query.where('workflow_runs.started_at', '<', filter.to);
  const result = await paginateByKeyset(trx, query, page, {
    sortKeys: RUN_SORT_KEYS,
    tiebreak: 'workflow_runs.id',
    // Two lists (one workflow's runs, all runs), each its own cursors.
    binding: listCursorBinding(
      binding.secret,
      workflowId ? 'workflow_runs' : 'all_workflow_runs',
      tenantId,
      {
        workflow_id: workflowId,
        status: filter.status,
        from: filter.from?.toISOString(),
        to: filter.to?.toISOString(),
      },
    ),
    // One index filters and orders each list (a range of its started_at), except a workflow's
    // runs by status, whose status is checked on the workflow's index rows.
    filtered: !!(workflowId && filter.status),
  });
  return {
    ...result,
    items: result.items.map(({ workflow_name, ...run }) => ({
      ...renderRun(run),
      workflow_name: workflow_name ?? '',
    })),
  };
}

/** What a replay needs of the run it replays: its row, steps and stored context. */
export interface ReplaySource {
  run: RunWithSteps;
  context: unknown;
}

export async function findRun(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<RunWithSteps | undefined> {
  return (await findRunForReplay(trx, tenantId, id))?.run;
}

export async function findRunForReplay(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<ReplaySource | undefined> {
  const row = await trx
    .selectFrom('workflow_runs')
    .select([...RUN_COLUMNS, 'context'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const steps = await trx
    .selectFrom('workflow_run_steps')
    .select([
      'position',
      'node_type',
      'node_name',
      'status',
      'message',
      'response_status',
      'duration_ms',
    ])
    .where('tenant_id', '=', tenantId)
    .where('run_id', '=', id)
    .orderBy('position')
    .execute();
  const replays = await trx
    .selectFrom('workflow_runs')
    .select(RUN_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('replay_of', '=', id)
    .orderBy('started_at', 'desc')
    .limit(MAX_REPLAYS_SHOWN)
    .execute();
  const { context, ...run } = row;
  return { run: { ...renderRun(run), steps, replays: replays.map(renderRun) }, context };
}
