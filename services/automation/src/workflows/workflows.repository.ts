import type { AutomationWorkflowsTable, Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import type {
  Condition,
  Workflow,
  WorkflowChange,
  WorkflowInput,
  WorkflowNode,
} from './workflows.schema';

const COLUMNS = [
  'id',
  'name',
  'enabled',
  'trigger_event',
  'trigger_conditions',
  'nodes',
  'created_at',
  'updated_at',
] as const;
type Row = Pick<Selectable<AutomationWorkflowsTable>, (typeof COLUMNS)[number]>;

/** A stored workflow with its sealed secret, as the engine runs it. */
export interface StoredWorkflow extends Workflow {
  signing_secret_sealed: string;
}

export function render(row: Row): Workflow {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    trigger: {
      event: row.trigger_event,
      conditions: row.trigger_conditions as Condition[],
    },
    nodes: row.nodes as WorkflowNode[],
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function insertWorkflow(
  trx: Trx,
  tenantId: string,
  userId: string,
  input: WorkflowInput,
  sealedSecret: string,
): Promise<Workflow> {
  const row = await trx
    .insertInto('automation_workflows')
    .values({
      tenant_id: tenantId,
      name: input.name,
      enabled: input.enabled,
      trigger_event: input.trigger.event,
      trigger_conditions: JSON.stringify(input.trigger.conditions),
      nodes: JSON.stringify(input.nodes),
      signing_secret_sealed: sealedSecret,
      created_by: userId,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
  return render(row);
}

/**
 * What the workflow list may be sorted by, each NOT NULL and on its
 * `(tenant_id, <key>, id)` index (migration 0023).
 */
const WORKFLOW_SORT_KEYS = {
  created_at: { expression: sql`automation_workflows.created_at`, type: 'timestamptz' },
  updated_at: { expression: sql`automation_workflows.updated_at`, type: 'timestamptz' },
  name: { expression: sql`automation_workflows.name`, type: 'text' },
} satisfies Record<string, SortKey>;

/** A page of the tenant's workflows, by page or by cursor (the shared keyset helper). */
export async function listWorkflows(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<string>,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Workflow>> {
  const query = trx
    .selectFrom('automation_workflows')
    .select(COLUMNS)
    .where('automation_workflows.tenant_id', '=', tenantId);
  const result = await paginateByKeyset(trx, query, page, {
    sortKeys: WORKFLOW_SORT_KEYS,
    tiebreak: 'automation_workflows.id',
    binding: listCursorBinding(binding.secret, 'automation_workflows', tenantId),
    filtered: false,
  });
  return { ...result, items: result.items.map(render) };
}

export async function findWorkflow(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<StoredWorkflow | undefined> {
  const row = await trx
    .selectFrom('automation_workflows')
    .select([...COLUMNS, 'signing_secret_sealed'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { ...render(row), signing_secret_sealed: row.signing_secret_sealed };
}

export async function updateWorkflow(
  trx: Trx,
  tenantId: string,
  id: string,
  change: WorkflowChange & { sealedSecret?: string },
): Promise<Workflow | undefined> {
  const row = await trx
    .updateTable('automation_workflows')
    .set({
      ...(change.name !== undefined && { name: change.name }),
      ...(change.enabled !== undefined && { enabled: change.enabled }),
      ...(change.trigger !== undefined && {
        trigger_event: change.trigger.event,
        trigger_conditions: JSON.stringify(change.trigger.conditions),
      }),
      ...(change.nodes !== undefined && { nodes: JSON.stringify(change.nodes) }),
      ...(change.sealedSecret !== undefined && { signing_secret_sealed: change.sealedSecret }),
      updated_at: new Date(),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
  return row && render(row);
}

export async function deleteWorkflow(trx: Trx, tenantId: string, id: string): Promise<boolean> {
  const result = await trx
    .deleteFrom('automation_workflows')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The tenant's enabled workflows, with their sealed secrets (the consumer matches them). */
export async function enabledWorkflows(trx: Trx, tenantId: string): Promise<StoredWorkflow[]> {
  const rows = await trx
    .selectFrom('automation_workflows')
    .select([...COLUMNS, 'signing_secret_sealed'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...render(row), signing_secret_sealed: row.signing_secret_sealed }));
}
