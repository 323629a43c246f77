import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the form, deal, workflow, run and inbound event lists, which page by keyset like
 * the others: the
 * shared page helper orders by the sort column and then `id`, both in the requested direction,
 * so each offered sort has a `(tenant_id, column, id)` index read forwards or backwards with no
 * sort step, and a cursor's `(column, id) > (last value, last id)` is one range of it.
 *
 * - forms sort by `created_at`, `updated_at` or `name`: one such index each; `slug` is served by
 *   the table's unique `(tenant_id, slug)`;
 * - deals list newest first, by `created_at` and `id` both descending, which the
 *   `(tenant_id, created_at DESC, id)` index could not give without a sort (its id runs the
 *   other way): it is replaced by the ascending one, read backwards. The stage and assignee
 *   filters' indexes gain `created_at, id`, so a filtered list (the board reads one stage) is
 *   one range too; they still serve those filters, so writes keep as many indexes as before;
 * - workflows sort by `created_at`, `updated_at` or `name` (the `created_at DESC, id` index is
 *   replaced by the ascending one), and a workflow's runs by `started_at`:
 *   workflow_runs_by_workflow becomes `(tenant_id, workflow_id, started_at, id)`;
 * - the inbound delivery ledger lists by `received_at`: inbound_events_by_tenant becomes
 *   `(tenant_id, received_at, id)` (its other sorts are withdrawn, not indexed: see
 *   inbound-events.repository.ts).
 *
 * CREATE INDEX (not CONCURRENTLY: migrations run in a transaction) holds writes to the table
 * while it builds; a tenant has tens of forms and workflows and thousands of deals, so that is
 * a moment; the runs' index is rebuilt over every run kept, once.
 */
const INDEXES = [
  ['crm_web_forms_by_created', 'crm_web_forms', 'tenant_id, created_at, id'],
  ['crm_web_forms_by_updated', 'crm_web_forms', 'tenant_id, updated_at, id'],
  ['crm_web_forms_by_name', 'crm_web_forms', 'tenant_id, name, id'],
  ['crm_deals_by_created_at', 'crm_deals', 'tenant_id, created_at, id'],
  ['crm_deals_by_stage', 'crm_deals', 'tenant_id, stage, created_at, id'],
  ['crm_deals_by_assignee', 'crm_deals', 'tenant_id, assigned_to, created_at, id'],
  ['automation_workflows_by_created_at', 'automation_workflows', 'tenant_id, created_at, id'],
  ['automation_workflows_by_updated_at', 'automation_workflows', 'tenant_id, updated_at, id'],
  ['automation_workflows_by_name', 'automation_workflows', 'tenant_id, name, id'],
  ['workflow_runs_by_workflow', 'workflow_runs', 'tenant_id, workflow_id, started_at, id'],
  ['inbound_events_by_tenant', 'inbound_events', 'tenant_id, received_at, id'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX crm_deals_by_created, crm_deals_by_stage, crm_deals_by_assignee,
    automation_workflows_by_created, workflow_runs_by_workflow, inbound_events_by_tenant`.execute(
    db,
  );
  for (const [name, table, columns] of INDEXES) {
    await sql`CREATE INDEX ${sql.id(name)} ON ${sql.table(table)} (${sql.raw(columns)})`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
  await sql`CREATE INDEX crm_deals_by_created ON crm_deals (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await sql`CREATE INDEX crm_deals_by_stage ON crm_deals (tenant_id, stage)`.execute(db);
  await sql`CREATE INDEX crm_deals_by_assignee ON crm_deals (tenant_id, assigned_to)`.execute(db);
  await sql`CREATE INDEX automation_workflows_by_created
    ON automation_workflows (tenant_id, created_at DESC, id)`.execute(db);
  await sql`CREATE INDEX workflow_runs_by_workflow
    ON workflow_runs (tenant_id, workflow_id, started_at DESC, id)`.execute(db);
  await sql`CREATE INDEX inbound_events_by_tenant
    ON inbound_events (tenant_id, received_at DESC, id)`.execute(db);
}
