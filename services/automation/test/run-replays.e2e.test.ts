import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  eventually,
  sessionClient,
  signIn,
  tenantSession,
  testDb,
  usePlatformBehindGateway,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { Webhook } from 'svix';
import { service as crmApi } from '../../crm-api/src/main';
import { service } from '../src/main';
import { startReceiver, type Receiver } from './support/receiver';

/**
 * POST /api/automations/runs/:id/replay through the gateway: a lead import runs a workflow
 * whose second node answers 500; the URL is corrected and a person replays the run. The new
 * run is linked to the original (replay_of, replayed_by), sends only the failed step, with the
 * same `webhook-id` and the same body, signed (svix verifies it), and the receiver sees that id
 * twice. A succeeded run or step is a 409, a viewer a 403, another tenant a 404, each writing
 * nothing; with the SSRF guard on, the replay's send is refused again.
 */
const ENV = { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', OUTBOUND_TIMEOUT_MS: '3000' };
const stack = usePlatformBehindGateway([{ service: crmApi }, { service, env: ENV }]);
// A second stack (the shared test database) whose automation keeps the SSRF guard on.
const database = testDb();
const guarded = useServiceBehindGateway(service);

type Session = Awaited<ReturnType<typeof tenantSession>>;
let receiver: Receiver;
let owner: Session;
let other: Session;
let viewerCookie: string;
let workflowId: string;
let secret: string;
let originalId: string;

const api = (cookie: string) => sessionClient(stack.url, cookie);
const replay = (cookie: string, runId: string, body: object = {}) =>
  api(cookie).post(`/api/automations/runs/${runId}/replay`, body);

function runsOf(tenantId: string) {
  return withSystemScope(stack.database.db, (trx) =>
    trx
      .selectFrom('workflow_runs')
      .select(['id', 'status', 'replay_of', 'replayed_by', 'event_id', 'is_test'])
      .where('tenant_id', '=', tenantId)
      .orderBy('started_at')
      .execute(),
  );
}

const idsSeen = () => receiver.received.map((r) => `${r.path} ${r.headers['webhook-id']}`);

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await tenantSession(stack, stack.database);
  other = await tenantSession(stack, stack.database);
  const viewer = await createAccount(stack.database, 'viewer');
  await addMember(stack.database, owner.tenantId, viewer.id, 'viewer');
  viewerCookie = await signIn(stack.gateway.app, viewer.email);
  const res = await api(owner.cookie).post('/api/automations/workflows', {
    name: 'Leads out',
    trigger: { event: 'lead.created' },
    nodes: [
      { type: 'webhook', name: 'first', config: { url: `${receiver.url}/ok`, method: 'POST' } },
      { type: 'webhook', name: 'second', config: { url: `${receiver.url}/fail`, method: 'POST' } },
    ],
  });
  expect(res.status).toBe(201);
  workflowId = res.body.data.workflow.id;
  secret = res.body.data.signing_secret;
  const imported = await api(owner.cookie).post('/api/v1/import/leads', {
    leads: [{ email: 'ann@replay.example', status: 'new' }],
  });
  expect(imported.status).toBe(200);
  const [run] = await eventually(async () => {
    const rows = await runsOf(owner.tenantId);
    expect(rows).toMatchObject([{ status: 'failed' }]);
    return rows;
  }, 20_000);
  originalId = run.id;
});
afterAll(async () => {
  await receiver.close();
  await database.close();
});

describe('POST /api/automations/runs/:id/replay', () => {
  it('refuses what may not be replayed, writing nothing: viewer 403, other tenant 404, a succeeded step 409, a bad position 400', async () => {
    const before = await runsOf(owner.tenantId);
    const refusals: Array<
      [Promise<{ status: number; body: { code: string; message: string } }>, number, string]
    > = [
      [replay(viewerCookie, originalId), 403, 'FORBIDDEN'],
      [replay(other.cookie, originalId), 404, 'NOT_FOUND'],
      [replay(owner.cookie, 'not-a-uuid'), 404, 'NOT_FOUND'],
      [replay(owner.cookie, originalId, { position: 0 }), 409, 'CONFLICT'],
      [replay(owner.cookie, originalId, { position: 7 }), 400, 'VALIDATION_ERROR'],
      [replay(owner.cookie, originalId, { position: -1 }), 400, 'VALIDATION_ERROR'],
    ];
    for (const [pending, status, code] of refusals) {
      const res = await pending;
      expect([res.status, res.body.code]).toEqual([status, code]);
    }
    expect((await replay(owner.cookie, originalId, { position: 0 })).body.message).toBe(
      'Step 0 succeeded: only a failed step is replayed',
    );
    expect(await runsOf(owner.tenantId)).toEqual(before);
    expect(receiver.received).toHaveLength(2);
  });

  it('sends the failed step again as a new linked run, with the same webhook-id and body', async () => {
    // The receiver's URL is corrected, then a person replays the failed run.
    const workflow = (await api(owner.cookie).get(`/api/automations/workflows/${workflowId}`)).body
      .data.workflow;
    workflow.nodes[1].config.url = `${receiver.url}/fixed`;
    const patched = await api(owner.cookie).patch(`/api/automations/workflows/${workflowId}`, {
      nodes: workflow.nodes,
    });
    expect(patched.status).toBe(200);

    const res = await replay(owner.cookie, originalId);
    expect(res.status).toBe(201);
    const run = res.body.data.run;
    expect(run).toMatchObject({
      workflow_id: workflowId,
      replay_of: originalId,
      replayed_by: owner.userId,
      status: 'success',
      event_id: null,
      is_test: false,
      replays: [],
      steps: [
        {
          position: 1,
          node_name: 'second',
          status: 'success',
          response_status: 200,
          message: `Webhook POST ${receiver.url}/fixed → 200`,
        },
      ],
    });
    expect(await runsOf(owner.tenantId)).toEqual([
      expect.objectContaining({ id: originalId, replay_of: null, status: 'failed' }),
      expect.objectContaining({ id: run.id, replay_of: originalId, replayed_by: owner.userId }),
    ]);

    // The receiver saw the step's id twice: first on /fail, now on /fixed; same body.
    const stepId = `msg_${originalId}_1`;
    expect(idsSeen()).toEqual([`/ok msg_${originalId}_0`, `/fail ${stepId}`, `/fixed ${stepId}`]);
    const [, first, again] = receiver.received;
    expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
    expect(() =>
      new Webhook(secret).verify(again.body, again.headers as Record<string, string>),
    ).not.toThrow();

    // The original lists its replay; the history filters find each.
    const original = await api(owner.cookie).get(`/api/automations/runs/${originalId}`);
    expect(original.body.data.run.replays).toMatchObject([{ id: run.id, replay_of: originalId }]);
    const failed = await api(owner.cookie).get('/api/automations/runs?status=failed');
    expect(failed.body.items.map((r: { id: string }) => r.id)).toEqual([originalId]);
  });

  it('a succeeded run is a 409 and writes nothing', async () => {
    const [, replayed] = await runsOf(owner.tenantId);
    const res = await replay(owner.cookie, replayed.id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'CONFLICT',
      message: 'Run succeeded: only a failed run or step is replayed',
    });
    expect(await runsOf(owner.tenantId)).toHaveLength(2);
  });

  it('with the SSRF guard on, a replay to a loopback address is refused at send time (nothing arrives); a run without context is a 409', async () => {
    const session = await tenantSession(guarded, database);
    const created = await sessionClient(guarded.url, session.cookie).post(
      '/api/automations/workflows',
      {
        name: 'Saved before the rule',
        trigger: { event: 'lead.created' },
        nodes: [
          { type: 'webhook', config: { url: 'https://hooks.example.com/x', method: 'POST' } },
        ],
      },
    );
    expect(created.status).toBe(201);
    const id = created.body.data.workflow.id;
    // A workflow saved before the save-time rule existed, and a failed run of it.
    const url = `${receiver.url}/loopback`;
    const runId = await withSystemScope(database.db, async (trx) => {
      await trx
        .updateTable('automation_workflows')
        .set({ nodes: JSON.stringify([{ type: 'webhook', config: { url, method: 'POST' } }]) })
        .where('id', '=', id)
        .execute();
      const run = await trx
        .insertInto('workflow_runs')
        .values({
          tenant_id: session.tenantId,
          workflow_id: id,
          event_type: 'lead.created',
          module: 'leads',
          record_id: 'r1',
          is_test: true,
          context: JSON.stringify({
            record: { id: 'r1' },
            event: { id: 'e', type: 'lead.created', occurred_at: '2026-11-26T00:00:00Z' },
          }),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('workflow_run_steps')
        .values({
          run_id: run.id,
          tenant_id: session.tenantId,
          position: 0,
          node_type: 'webhook',
          node_name: null,
          status: 'failed',
          message: `Webhook POST ${url} → 500`,
          response_status: 500,
          duration_ms: 3,
        })
        .execute();
      await trx
        .updateTable('workflow_runs')
        .set({ status: 'failed' })
        .where('id', '=', run.id)
        .execute();
      return run.id;
    });
    const sent = receiver.received.length;
    const res = await sessionClient(guarded.url, session.cookie).post(
      `/api/automations/runs/${runId}/replay`,
      {},
    );
    expect(res.status).toBe(201);
    expect(res.body.data.run).toMatchObject({
      status: 'failed',
      replay_of: runId,
      steps: [
        {
          position: 0,
          status: 'failed',
          response_status: null,
          message: `Webhook POST ${url} → error: blocked: 127.0.0.1 is not a public address (loopback)`,
        },
      ],
    });
    expect(receiver.received).toHaveLength(sent);

    // A failed run recorded before runs kept their context cannot be sent as it was: 409.
    const oldRun = await withSystemScope(database.db, (trx) =>
      trx
        .insertInto('workflow_runs')
        .values({
          tenant_id: session.tenantId,
          workflow_id: id,
          event_type: 'lead.created',
          module: 'leads',
          record_id: 'r0',
          is_test: true,
        })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('workflow_runs')
        .set({ status: 'failed' })
        .where('id', '=', oldRun.id)
        .execute(),
    );
    const refused = await sessionClient(guarded.url, session.cookie).post(
      `/api/automations/runs/${oldRun.id}/replay`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      'Run was recorded before replays were possible: it cannot be replayed',
    );
    const replays = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('workflow_runs').select('id').where('replay_of', '=', oldRun.id).execute(),
    );
    expect(replays).toEqual([]);
  });
});
