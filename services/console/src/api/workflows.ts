import type {
  Condition,
  WorkflowInput,
  WorkflowNode,
} from '../../../../libs/shared/src/automation/workflow-rules';
import { api, type Envelope } from './client';

/** A workflow as the API renders it (never with its secret). */
export interface Workflow {
  id: string;
  name: string;
  enabled: boolean;
  trigger: { event: string; conditions: Condition[] };
  nodes: WorkflowNode[];
  created_at: string;
  updated_at: string;
}

export type RunStatus = 'running' | 'success' | 'failed';

export interface RunStep {
  position: number;
  node_type: string;
  node_name: string | null;
  status: 'success' | 'failed';
  /** `Webhook <METHOD> <URL> → <status>` (or `→ error: ...`). */
  message: string;
  response_status: number | null;
  duration_ms: number;
}

export interface Run {
  id: string;
  workflow_id: string;
  event_id: string | null;
  event_type: string;
  module: string;
  record_id: string;
  is_test: boolean;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  replay_of: string | null;
  replayed_by: string | null;
}

/** A run as the run lists answer it: with its workflow's name. */
export interface RunListItem extends Run {
  workflow_name: string;
}

export interface RunWithSteps extends Run {
  steps: RunStep[];
  replays: Run[];
}

/** The keyset page the automation lists answer (CursorPage). */
export interface CursorPage<T> {
  items: T[];
  total: number;
  totalExact: boolean;
  nextCursor: string | null;
}

export interface RunFilter {
  status?: RunStatus;
  /** ISO date-times: from inclusive, to exclusive. */
  from?: string;
  to?: string;
}

const BASE = '/api/automations/workflows';
const id = (value: string) => encodeURIComponent(value);
export const WORKFLOWS_PAGE_SIZE = 100;
export const RUNS_PAGE_SIZE = 25;

export function fetchWorkflowsPage(cursor: string | undefined, signal?: AbortSignal) {
  const params = new URLSearchParams({
    pageSize: String(WORKFLOWS_PAGE_SIZE),
    sortBy: 'created_at',
    sortOrder: 'desc',
  });
  if (cursor) params.set('cursor', cursor);
  return api<CursorPage<Workflow>>(`${BASE}?${params}`, { signal });
}

export function fetchWorkflow(workflowId: string, signal?: AbortSignal) {
  return api<Envelope<{ workflow: Workflow }>>(`${BASE}/${id(workflowId)}`, { signal });
}

export function createWorkflow(definition: WorkflowInput) {
  return api<Envelope<{ workflow: Workflow; signing_secret: string }>>(BASE, {
    method: 'POST',
    body: definition,
  });
}

export function updateWorkflow(workflowId: string, change: Partial<WorkflowInput>) {
  return api<Envelope<{ workflow: Workflow }>>(`${BASE}/${id(workflowId)}`, {
    method: 'PATCH',
    body: change,
  });
}

export function rotateSecret(workflowId: string) {
  return api<Envelope<{ workflow: Workflow; signing_secret: string }>>(
    `${BASE}/${id(workflowId)}/rotate-secret`,
    { method: 'POST', body: {} },
  );
}

/** What a test run runs on: a sample record (and its module), or one of the recent events. */
export type TestRunOn = { module?: string; record: object } | { eventId: string };

export function testWorkflow(workflowId: string, on: TestRunOn) {
  return api<Envelope<{ run: RunWithSteps }>>(`${BASE}/${id(workflowId)}/test`, {
    method: 'POST',
    body: on,
  });
}

/** One page of runs, newest first: of one workflow, or of all when `workflowId` is undefined. */
export function fetchRunsPage(
  workflowId: string | undefined,
  filter: RunFilter,
  cursor: string | undefined,
  pageSize = RUNS_PAGE_SIZE,
  signal?: AbortSignal,
) {
  const params = new URLSearchParams({
    pageSize: String(pageSize),
    sortBy: 'started_at',
    sortOrder: 'desc',
  });
  for (const [key, value] of Object.entries(filter)) if (value) params.set(key, value);
  if (cursor) params.set('cursor', cursor);
  const path = workflowId ? `${BASE}/${id(workflowId)}/runs` : '/api/automations/runs';
  return api<CursorPage<RunListItem>>(`${path}?${params}`, { signal });
}

export function fetchRun(runId: string, signal?: AbortSignal) {
  return api<Envelope<{ run: RunWithSteps }>>(`/api/automations/runs/${id(runId)}`, { signal });
}

/** Replays a failed run's failed steps, or the one failed step at `position`. */
export function replayRun(runId: string, position?: number) {
  return api<Envelope<{ run: RunWithSteps }>>(`/api/automations/runs/${id(runId)}/replay`, {
    method: 'POST',
    body: position === undefined ? {} : { position },
  });
}
