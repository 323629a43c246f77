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
import type { Run, RunWithSteps, Step } from './runs.schema';

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
] as const;
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
 * What a workflow's runs may be sorted by: started_at (NOT NULL), on workflow_runs_by_workflow
 * `(tenant_id, workflow_id, started_at, id)` (migration 0023).
 */
const RUN_SORT_KEYS = {
  started_at: { expression: sql`workflow_runs.started_at`, type: 'timestamptz' },
} satisfies Record<string, SortKey>;

/**
 * A page of one workflow's runs, by page or by cursor (the shared keyset helper); the workflow
 * is one of the cursor's filters, so a cursor of one workflow's runs is refused by another's.
 */
export async function listRuns(
  trx: Trx,
  tenantId: string,
  workflowId: string,
  page: CursorPageQuery<string>,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Run>> {
  const query = trx
    .selectFrom('workflow_runs')
    .select(RUN_COLUMNS)
    .where('workflow_runs.tenant_id', '=', tenantId)
    .where('workflow_runs.workflow_id', '=', workflowId);
  const result = await paginateByKeyset(trx, query, page, {
    sortKeys: RUN_SORT_KEYS,
    tiebreak: 'workflow_runs.id',
    binding: listCursorBinding(binding.secret, 'workflow_runs', tenantId, {
      workflow_id: workflowId,
    }),
    // Always one workflow: its index both filters and orders, so the count may follow the sort.
    filtered: false,
  });
  return { ...result, items: result.items.map(renderRun) };
}

export async function findRun(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<RunWithSteps | undefined> {
  const row = await trx
    .selectFrom('workflow_runs')
    .select(RUN_COLUMNS)
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
  return { ...renderRun(row), steps };
}
