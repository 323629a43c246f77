import { withSystemScope, withTenant } from '@crm/shared/db';
import type { CursorPage } from '@crm/shared/pagination';
import { createTenant, planReads, selectsSent, testDb } from '@crm/test-kit';
import { CompiledQuery, sql } from 'kysely';
import { listRuns } from '../src/runs/runs.repository';
import { listWorkflows } from '../src/workflows/workflows.repository';

/**
 * Database tier: every sort the workflow list offers, and a workflow's runs by started_at, are
 * read in order from a (tenant_id, ..., key, id) index (migration 0023), by page and by cursor
 * (one range of it after the page before), on 20,000 runs of 10 workflows (a fifth failed)
 * and 3,000 workflows; the run history across workflows reads workflow_runs_by_started, or
 * workflow_runs_by_status when filtered by status, with or without a time range (migration
 * 0028). A run list names each run's workflow: one primary-key lookup per row of the page,
 * never one per row counted.
 */
const database = testDb();
afterAll(() => database.close());

const CURSORS = { secret: 'explain test cursor secret' };
const NO_FILTER = { status: undefined, from: undefined, to: undefined };
let tenantId: string;
let workflowId: string;

beforeAll(async () => {
  tenantId = (await createTenant(database)).id;
  await withSystemScope(database.db, async (trx) => {
    const t = sql.val(tenantId);
    const at = sql`now() - g * interval '1 minute'`;
    await sql`INSERT INTO automation_workflows
        (tenant_id, name, trigger_event, nodes, signing_secret_sealed, created_at, updated_at)
      SELECT ${t}, 'Workflow ' || g, 'lead.*', '[]', 'sealed', ${at}, ${at}
      FROM generate_series(1, 3000) g`.execute(trx);
    workflowId = (
      await trx
        .selectFrom('automation_workflows')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .orderBy('id')
        .limit(1)
        .executeTakeFirstOrThrow()
    ).id;
    await sql`INSERT INTO workflow_runs
        (tenant_id, workflow_id, event_type, module, record_id, is_test, status, started_at)
      SELECT ${t}, w.ids[1 + g % 10], 'lead.created', 'leads', 'r' || g, true,
        CASE WHEN g % 5 = 0 THEN 'failed' ELSE 'success' END, ${at}
      FROM generate_series(1, 20000) g,
        (SELECT array_agg(id) AS ids FROM (SELECT id FROM automation_workflows
          WHERE tenant_id = ${t} ORDER BY id LIMIT 10) first) w`.execute(trx);
  });
  await sql`ANALYZE automation_workflows, workflow_runs`.execute(database.db);
}, 120_000);

const page = (sortBy: string, sortOrder: 'asc' | 'desc', cursor?: string) => ({
  page: 1,
  pageSize: 20,
  sortBy,
  sortOrder,
  cursor,
});

/** Rows a page reads: its 20 and the one that tells whether there is a next page. */
const PAGE_READ = 21;
/** The run lists' lookup of each run's workflow (its name). */
const WORKFLOW_LOOKUP = 'automation_workflows_pkey';

interface AnalyzedNode {
  'Index Name'?: string;
  'Actual Loops': number;
  Plans?: AnalyzedNode[];
}
const analyzedNodes = (node: AnalyzedNode): AnalyzedNode[] => [
  node,
  ...(node.Plans ?? []).flatMap(analyzedNodes),
];

/** How many times the statement, run, looked up a workflow by its primary key. */
async function workflowLookups(statement: CompiledQuery): Promise<number> {
  const nodes = await withTenant(database.db, tenantId, async (trx) => {
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: AnalyzedNode }> }>(
      CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, [
        ...statement.parameters,
      ]),
    );
    return analyzedNodes(rows[0]['QUERY PLAN'][0].Plan);
  });
  return nodes
    .filter((node) => node['Index Name'] === WORKFLOW_LOOKUP)
    .reduce((sum, node) => sum + node['Actual Loops'], 0);
}

/**
 * The first page and the page after it by cursor each read `index` in order, one statement
 * each; `lookups`: the page's rows also look their workflow up (a run list), once per row read
 * (the page and the one that tells whether there is a next), not per row counted.
 */
async function expectPagesRead(
  list: (trx: never, cursor?: string) => Promise<CursorPage<{ id: string }>>,
  index: string,
  lookups = false,
) {
  const indexes = lookups ? [index, WORKFLOW_LOOKUP] : [index];
  const [first] = await selectsSent(database, tenantId, (trx) => list(trx));
  expect(await planReads(database, tenantId, first)).toEqual({
    indexes,
    sorts: false,
    seqScan: false,
  });
  if (lookups) expect(await workflowLookups(first)).toBe(PAGE_READ);
  const one = await withTenant(database.db, tenantId, (trx) => list(trx as never));
  let two: CursorPage<{ id: string }> | undefined;
  const sent = await selectsSent(database, tenantId, async (trx) => {
    two = await list(trx, one.nextCursor as string);
  });
  expect(sent).toHaveLength(1);
  expect(sent[0].sql).toMatch(/\) [<>] \(CAST\(/);
  expect(await planReads(database, tenantId, sent[0])).toEqual({
    indexes,
    sorts: false,
    seqScan: false,
  });
  if (lookups) expect(await workflowLookups(sent[0])).toBe(PAGE_READ);
  expect(two?.page).toBe(2);
  const seen = new Set(one.items.map((w) => w.id));
  expect(two?.items).toHaveLength(20);
  expect(two?.items.some((w) => seen.has(w.id))).toBe(false);
}

describe('workflow and run lists read their indexes', () => {
  it.each([
    ['created_at', 'automation_workflows_by_created_at'],
    ['updated_at', 'automation_workflows_by_updated_at'],
    ['name', 'automation_workflows_by_name'],
  ])('workflows by %s read %s, by page and by cursor, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      await expectPagesRead(
        (trx, cursor) => listWorkflows(trx, tenantId, page(sortBy, order, cursor), CURSORS),
        index,
      );
    }
  });

  it("a workflow's runs read workflow_runs_by_workflow, by page and by cursor, either way", async () => {
    for (const order of ['asc', 'desc'] as const) {
      await expectPagesRead(
        (trx, cursor) =>
          listRuns(
            trx,
            tenantId,
            workflowId,
            NO_FILTER,
            page('started_at', order, cursor),
            CURSORS,
          ),
        'workflow_runs_by_workflow',
        true,
      );
    }
  });

  const lastDay = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 60_000) };
  it.each([
    ['no filter', 'workflow_runs_by_started', {}],
    ['a time range', 'workflow_runs_by_started', lastDay],
    ['status failed', 'workflow_runs_by_status', { status: 'failed' as const }],
    [
      'status and a time range',
      'workflow_runs_by_status',
      { status: 'failed' as const, ...lastDay },
    ],
  ])(
    'the runs of all workflows with %s read %s, by page and by cursor, either way',
    async (_, index, filter) => {
      for (const order of ['asc', 'desc'] as const) {
        await expectPagesRead(
          (trx, cursor) =>
            listRuns(
              trx,
              tenantId,
              undefined,
              { ...NO_FILTER, ...filter },
              page('started_at', order, cursor),
              CURSORS,
            ),
          index,
          true,
        );
      }
    },
  );
});
