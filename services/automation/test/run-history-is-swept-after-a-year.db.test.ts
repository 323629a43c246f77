import { withSystemScope, type Db } from '@crm/shared/db';
import { createTenant, isolatedTestDb, sweepPlans } from '@crm/test-kit';
import { sql } from 'kysely';
import { configSchema } from '../src/config';
import { service } from '../src/main';
import { automationRetention } from '../src/retention/retention-sweeps';

/*
 * automation's retention: a run started over a year ago goes with its steps, one just inside
 * the year stays, and a run someone replayed within the year stays with its chain. Across
 * tenants by age alone; the rows kept are left as they were.
 */
let database: Db;
const [sweep] = automationRetention(configSchema.parse({})).sweeps;
const DAY = 24 * 60 * 60_000;
const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms);

beforeAll(async () => {
  database = await isolatedTestDb();
});
afterAll(() => database.close());

async function workflowOf(tenantId: string): Promise<string> {
  const row = await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('automation_workflows')
      .values({
        tenant_id: tenantId,
        name: 'Notify',
        trigger_event: 'lead.created',
        nodes: '[]',
        signing_secret_sealed: 'sealed',
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

async function run(
  tenantId: string,
  workflowId: string,
  startedAgoMs: number,
  replayOf: string | null = null,
): Promise<string> {
  return withSystemScope(database.db, async (trx) => {
    const { id } = await trx
      .insertInto('workflow_runs')
      .values({
        tenant_id: tenantId,
        workflow_id: workflowId,
        event_type: 'lead.created',
        module: 'leads',
        record_id: 'lead-1',
        is_test: replayOf === null,
        replay_of: replayOf,
        started_at: ago(startedAgoMs),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('workflow_run_steps')
      .values(
        [0, 1].map((position) => ({
          run_id: id,
          position,
          tenant_id: tenantId,
          node_type: 'webhook',
          status: 'success' as const,
          message: 'ok',
          duration_ms: 1,
        })),
      )
      .execute();
    return id;
  });
}

const runs = () =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('workflow_runs').selectAll().orderBy('id').execute(),
  );
const stepRunIds = async () =>
  [
    ...new Set(
      (
        await withSystemScope(database.db, (trx) =>
          trx.selectFrom('workflow_run_steps').select('run_id').execute(),
        )
      ).map((row) => row.run_id),
    ),
  ].sort();

it('deletes runs (and their steps) started over a year ago, in every tenant, and nothing else', async () => {
  expect(sweep.keepMs).toBe(365 * DAY);
  const [a, b] = [await createTenant(database), await createTenant(database)];
  const [wa, wb] = [await workflowOf(a.id), await workflowOf(b.id)];
  const old = [await run(a.id, wa, 365 * DAY + MINUTE), await run(b.id, wb, 400 * DAY)];
  const inside = [await run(a.id, wa, 365 * DAY - MINUTE), await run(b.id, wb, DAY)];
  // A run of 13 months ago replayed last week: the chain stays while the replay does.
  const replayed = await run(a.id, wa, 395 * DAY);
  const replay = await run(a.id, wa, 7 * DAY, replayed);
  // A run replayed, itself and its replay both over a year old: both go.
  const oldChain = await run(b.id, wb, 500 * DAY);
  const oldReplay = await run(b.id, wb, 450 * DAY, oldChain);

  const before = await runs();
  const deleted = await sweep.sweepBatch(database.db, ago(sweep.keepMs), 1000);
  expect(deleted).toBeGreaterThanOrEqual(3);
  const after = await runs();
  const kept = [...inside, replayed, replay].sort();
  expect(after.map((r) => r.id)).toEqual(kept);
  expect(after).toEqual(before.filter((r) => kept.includes(r.id)));
  expect(await stepRunIds()).toEqual(kept);
  expect(after.map((r) => r.id)).not.toContain(oldReplay);
  expect(old.some((id) => after.some((r) => r.id === id))).toBe(false);
  // Health sees nothing left past the year that the sweep would remove.
  expect(await sweep.oldestBefore(database.db, ago(sweep.keepMs))).toBeNull();
});

it('a batch and the health question read runs by age, without a sort', async () => {
  // A table with a history (planned on its statistics, not on an empty table's guesses).
  const tenant = await createTenant(database);
  const workflow = await workflowOf(tenant.id);
  await sql`INSERT INTO workflow_runs (tenant_id, workflow_id, event_id, event_type, module,
              record_id, started_at)
    SELECT ${tenant.id}, ${workflow}, gen_random_uuid(), 'lead.created', 'leads', 'lead-1',
           now() - n * interval '30 minutes'
      FROM generate_series(1, 30000) AS n`.execute(database.db);
  await sql`ANALYZE workflow_runs`.execute(database.db);
  const plans = await sweepPlans(database, async (db) => {
    await sweep.sweepBatch(db, new Date(0), 1000);
    await sweep.oldestBefore(db, new Date(0));
  });
  expect(plans).toHaveLength(2);
  for (const plan of plans) {
    expect(plan.indexes).toContain('workflow_runs_by_age');
    expect(plan.sorts).toBe(false);
    expect(plan.scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
  }
});

it('automation runs the sweep as one of its workers', () => {
  const workers = service.workers?.(
    {
      db: database.db,
      bus: { subscribe: jest.fn() },
      internalTokenSecret: 'a-test-internal-token-secret-of-32-chars',
    } as never,
    configSchema.parse({}),
  );
  expect(workers?.map((w) => w.name)).toContain('retention');
});
