import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

/**
 * The automation service: workflows (a trigger and an ordered list of nodes, with a
 * sealed Standard Webhooks signing secret), their runs and one step row per node.
 *
 * A run is unique per (workflow, triggering event): a redelivered event finds its run already
 * recorded and sends nothing again. Test runs have no event (`event_id` null, `is_test` true).
 */
export const WORKFLOW_RUN_STATUSES = ['running', 'success', 'failed'] as const;
export const WORKFLOW_STEP_STATUSES = ['success', 'failed'] as const;

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE automation_workflows (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    enabled boolean NOT NULL DEFAULT true,
    trigger_event text NOT NULL CHECK (length(trigger_event) BETWEEN 1 AND 200),
    trigger_conditions jsonb NOT NULL DEFAULT '[]',
    nodes jsonb NOT NULL,
    signing_secret_sealed text NOT NULL,
    created_by uuid REFERENCES users(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX automation_workflows_by_created ON automation_workflows (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await sql`CREATE INDEX automation_workflows_enabled ON automation_workflows (tenant_id)
    WHERE enabled`.execute(db);
  await enableTenantRls(db, 'automation_workflows');

  await sql`CREATE TABLE workflow_runs (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    workflow_id uuid NOT NULL REFERENCES automation_workflows(id) ON DELETE CASCADE,
    event_id uuid,
    event_type text NOT NULL,
    module text NOT NULL,
    record_id text NOT NULL,
    is_test boolean NOT NULL DEFAULT false,
    status text NOT NULL DEFAULT 'running' CHECK (status IN (${list(WORKFLOW_RUN_STATUSES)})),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    CHECK (is_test OR event_id IS NOT NULL)
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX workflow_runs_once_per_event ON workflow_runs (workflow_id, event_id)
    WHERE event_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX workflow_runs_by_workflow ON workflow_runs (tenant_id, workflow_id, started_at DESC, id)`.execute(
    db,
  );
  await enableTenantRls(db, 'workflow_runs');

  await sql`CREATE TABLE workflow_run_steps (
    run_id uuid NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
    position integer NOT NULL CHECK (position >= 0),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    node_type text NOT NULL,
    node_name text,
    status text NOT NULL CHECK (status IN (${list(WORKFLOW_STEP_STATUSES)})),
    message text NOT NULL,
    response_status integer,
    duration_ms integer NOT NULL CHECK (duration_ms >= 0),
    finished_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, position)
  )`.execute(db);
  await enableTenantRls(db, 'workflow_run_steps');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS workflow_run_steps, workflow_runs, automation_workflows`.execute(
    db,
  );
}
