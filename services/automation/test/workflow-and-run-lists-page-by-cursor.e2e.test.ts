import { withSystemScope } from '@crm/shared/db';
import {
  CURSOR_REFUSALS,
  itKeepsTheCursorContract,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service } from '../src/main';

/*
 * The workflow list, a workflow's runs and the runs of all workflows page by keyset like crm-api's lists (docs/api.md,
 * CursorPage): each keeps the shared cursor contract (libs/test-kit) through the real gateway,
 * on two tenants with the same rows; sort keys are shared in pairs (the id breaks the tie).
 */
const database = testDb();
const stack = useServiceBehindGateway(service);
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const ROWS = 8;
const at = sql`timestamptz '2026-11-01T00:00:00Z' + (g / 2) * interval '1 minute'`;

interface Seeded {
  session: Session;
  /** The workflow whose runs are seeded, and another with none. */
  workflowId: string;
  quietWorkflowId: string;
}

async function seed(session: Session): Promise<Seeded> {
  const t = session.tenantId;
  return withSystemScope(database.db, async (trx) => {
    const g = sql`generate_series(1, ${sql.lit(ROWS)}) g`;
    // Names shared in threes; updated in the other order than created.
    await sql`INSERT INTO automation_workflows
        (tenant_id, name, trigger_event, nodes, signing_secret_sealed, created_at, updated_at)
      SELECT ${t}, 'Workflow ' || (g % 3), 'lead.*', '[]', 'sealed', ${at},
             timestamptz '2026-11-01T00:00:00Z' + ((9 - g) / 3) * interval '1 minute'
      FROM ${g}`.execute(trx);
    const [first, second] = await trx
      .selectFrom('automation_workflows')
      .select('id')
      .where('tenant_id', '=', t)
      .orderBy('created_at')
      .orderBy('id')
      .limit(2)
      .execute();
    await sql`INSERT INTO workflow_runs
        (tenant_id, workflow_id, event_type, module, record_id, is_test, status, started_at)
      SELECT ${t}, ${first.id}, 'lead.created', 'leads', 'r' || g, true,
        CASE WHEN g % 2 = 0 THEN 'failed' ELSE 'success' END, ${at}
      FROM ${g}`.execute(trx);
    return { session, workflowId: first.id, quietWorkflowId: second.id };
  });
}

let owner: Seeded;
let other: Seeded;
beforeAll(async () => {
  owner = await seed(await tenantSession(stack, database));
  other = await seed(await tenantSession(stack, database));
});

const runsOf = (workflowId: string) => `/api/automations/workflows/${workflowId}/runs`;

describe('GET /api/automations/workflows by cursor', () => {
  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => '/api/automations/workflows',
    owner: () => owner.session.cookie,
    other: () => other.session.cookie,
    rows: ROWS,
    sorts: ['created_at', 'updated_at', 'name'],
    otherList: () => `${runsOf(owner.workflowId)}?pageSize=1`,
  });
});

describe('GET /api/automations/workflows/:id/runs by cursor', () => {
  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => runsOf(owner.workflowId),
    otherPath: () => runsOf(other.workflowId),
    owner: () => owner.session.cookie,
    other: () => other.session.cookie,
    rows: ROWS,
    sorts: ['started_at'],
    filter: { query: 'status=failed', rows: ROWS / 2 },
    otherList: () => '/api/automations/workflows?sortBy=created_at&sortOrder=asc&pageSize=1',
  });

  it("a cursor of one workflow's runs is refused by another's", async () => {
    const first = await request(stack.url)
      .get(`${runsOf(owner.workflowId)}?pageSize=3`)
      .set('Cookie', owner.session.cookie);
    const res = await request(stack.url)
      .get(`${runsOf(owner.quietWorkflowId)}?cursor=${encodeURIComponent(first.body.nextCursor)}`)
      .set('Cookie', owner.session.cookie);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: CURSOR_REFUSALS.otherList,
    });
  });
});

describe('GET /api/automations/runs (all workflows) by cursor', () => {
  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => '/api/automations/runs',
    owner: () => owner.session.cookie,
    other: () => other.session.cookie,
    rows: ROWS,
    sorts: ['started_at'],
    filter: { query: 'status=failed', rows: ROWS / 2 },
    otherList: () => `${runsOf(owner.workflowId)}?pageSize=1`,
  });

  it('filters by time: from inclusive, to exclusive; a bad status or range is 400', async () => {
    const get = (query: string) =>
      request(stack.url).get(`/api/automations/runs?${query}`).set('Cookie', owner.session.cookie);
    // Runs start two a minute from 2026-11-01T00:00 (g / 2 minutes, g = 1..8): 00:00 has g=1.
    const range = await get('from=2026-11-01T00:01:00Z&to=2026-11-01T00:03:00Z&pageSize=20');
    expect(range.status).toBe(200);
    expect(range.body.items.map((r: { record_id: string }) => r.record_id).sort()).toEqual([
      'r2',
      'r3',
      'r4',
      'r5',
    ]);
    expect((await get('status=failed&from=2026-11-01T00:03:00Z')).body.items).toHaveLength(2);
    for (const query of [
      'status=done',
      'from=yesterday',
      'from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z',
    ]) {
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('the run lists name each run’s workflow', () => {
  it('every run, whatever the number of workflows (150 here, each with a run)', async () => {
    const session = await tenantSession(stack, database);
    const t = session.tenantId;
    const names = await withSystemScope(database.db, async (trx) => {
      await sql`INSERT INTO automation_workflows
          (tenant_id, name, trigger_event, nodes, signing_secret_sealed, created_at, updated_at)
        SELECT ${t}, 'Numbered workflow ' || g, 'lead.*', '[]', 'sealed', ${at}, ${at}
        FROM generate_series(1, 150) g`.execute(trx);
      await sql`INSERT INTO workflow_runs
          (tenant_id, workflow_id, event_type, module, record_id, is_test, status, started_at)
        SELECT ${t}, id, 'lead.created', 'leads', 'r-' || id, true, 'success', created_at
        FROM automation_workflows WHERE tenant_id = ${t}`.execute(trx);
      const rows = await trx
        .selectFrom('automation_workflows')
        .select(['id', 'name'])
        .where('tenant_id', '=', t)
        .execute();
      return new Map(rows.map((row) => [row.id, row.name]));
    });
    const named: Array<[string, string]> = [];
    let cursor = '';
    do {
      const res = await request(stack.url)
        .get(
          `/api/automations/runs?pageSize=100${cursor && `&cursor=${encodeURIComponent(cursor)}`}`,
        )
        .set('Cookie', session.cookie);
      expect(res.status).toBe(200);
      for (const run of res.body.items) named.push([run.workflow_id, run.workflow_name]);
      cursor = res.body.nextCursor ?? '';
    } while (cursor);
    expect(named).toHaveLength(150);
    expect(new Map(named)).toEqual(names);
    // One workflow's runs name it too.
    const [[id, name]] = [...names];
    const own = await request(stack.url)
      .get(`${runsOf(id)}`)
      .set('Cookie', session.cookie);
    expect(own.body.items).toEqual([
      expect.objectContaining({ workflow_id: id, workflow_name: name }),
    ]);
  });
});
