import { loadConfig } from '@crm/shared/config';
import { withSystemScope } from '@crm/shared/db';
import type { EventEnvelope } from '@crm/shared/events';
import {
  eventually,
  freePortForTests,
  natsUrlForTests,
  outboxEvents,
  sessionClient,
  tenantSession,
  TEST_INTERNAL_TOKEN_SECRET,
  usePlatformBehindGateway,
} from '@crm/test-kit';
import { Webhook } from 'svix';
import { service as crmApi } from '../../crm-api/src/main';
import { createEngine } from '../src/engine/create-engine';
import { service } from '../src/main';
import { startReceiver, type Receiver } from './support/receiver';

/**
 * A lead imported through the gateway (crm-api) -> lead.created through the
 * outbox and the bus -> automation's consumer -> the workflow's webhook nodes -> a local
 * receiver. Exact headers and body, svix verification, failed steps that do not stop the run,
 * redelivery, tenant isolation and conditions.
 */
const ENV = { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', OUTBOUND_TIMEOUT_MS: '3000' };
const stack = usePlatformBehindGateway([{ service: crmApi }, { service, env: ENV }]);

type Session = Awaited<ReturnType<typeof tenantSession>>;
let receiver: Receiver;
let deadPort: number;
let a: Session;
let b: Session;
let workflowId: string;
let secret: string;

beforeAll(async () => {
  receiver = await startReceiver();
  deadPort = await freePortForTests();
  a = await tenantSession(stack, stack.database);
  b = await tenantSession(stack, stack.database);
  const res = await sessionClient(stack.url, a.cookie).post('/api/automations/workflows', {
    name: 'New leads',
    trigger: {
      event: 'lead.*',
      conditions: [
        { field: 'status', op: 'equals', value: 'new' },
        { field: 'email', op: 'contains', value: '@hot.example' },
      ],
    },
    nodes: [
      {
        type: 'webhook',
        name: 'post',
        config: { url: `${receiver.url}/hook`, method: 'POST', headers: { 'X-Team': 'sales' } },
      },
      { type: 'webhook', config: { url: `${receiver.url}/get?x=1`, method: 'GET' } },
      { type: 'webhook', config: { url: `${receiver.url}/fail`, method: 'PUT' } },
      { type: 'webhook', config: { url: `http://127.0.0.1:${deadPort}/dead`, method: 'POST' } },
      { type: 'webhook', config: { url: `${receiver.url}/after`, method: 'PATCH' } },
    ],
  });
  expect(res.status).toBe(201);
  workflowId = res.body.data.workflow.id;
  secret = res.body.data.signing_secret;
});
afterAll(() => receiver.close());

async function importLeads(session: Session, leads: object[]): Promise<Array<{ id: string }>> {
  const res = await sessionClient(stack.url, session.cookie).post('/api/v1/import/leads', {
    leads,
  });
  expect(res.status).toBe(200);
  return res.body.data;
}

function runsOf(tenantId: string) {
  return withSystemScope(stack.database.db, (trx) =>
    trx
      .selectFrom('workflow_runs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('started_at')
      .execute(),
  );
}

describe('a lead import fires the matching workflow', () => {
  let leadId: string;
  let runId: string;

  beforeAll(async () => {
    // First the events that must run nothing: tenant B's matching lead, tenant A's leads that
    // fail a condition. Then the one that runs; the consumer takes events in order.
    await importLeads(b, [{ email: 'b@hot.example', status: 'new' }]);
    await importLeads(a, [
      { email: 'cold@cold.example', status: 'new' },
      { email: 'q@hot.example', status: 'qualified' },
    ]);
    [{ id: leadId }] = await importLeads(a, [
      { email: 'ann@hot.example', first_name: 'Ann', status: 'new' },
    ]);
    const runs = await eventually(async () => {
      const rows = await runsOf(a.tenantId);
      expect(rows.filter((r) => r.status !== 'running')).toHaveLength(1);
      return rows;
    }, 20_000);
    runId = runs[0].id;
  });

  it('records one run for the matching lead only: failed, since two steps failed', async () => {
    // Over JetStream (a durable consumer) whenever the test run has NATS.
    expect(stack.bus.kind).toBe(natsUrlForTests() ? 'nats' : 'in-process');
    const runs = await runsOf(a.tenantId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      workflow_id: workflowId,
      event_type: 'lead.created',
      module: 'leads',
      record_id: leadId,
      is_test: false,
      status: 'failed',
      finished_at: expect.any(Date),
    });
    expect(await runsOf(b.tenantId)).toEqual([]);
  });

  it('the receiver got exactly the POST, GET, PUT and PATCH, nothing for tenant B or the unmet conditions', () => {
    expect(receiver.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /hook',
      'GET /get?x=1',
      'PUT /fail',
      'PATCH /after',
    ]);
    for (const r of receiver.received) {
      expect(r.body).not.toContain(b.tenantId);
      expect(r.body).not.toContain('cold@cold.example');
    }
  });

  it('POST carries Content-Type, the custom headers, User-Agent, the signature headers and the exact body', async () => {
    const post = receiver.received[0];
    const [event] = (await outboxEvents(stack.database, a.tenantId))
      .map((e) => e.envelope as unknown as EventEnvelope)
      .filter((e) => e.record.id === leadId);
    expect(post.headers).toMatchObject({
      'content-type': 'application/json',
      'x-team': 'sales',
      'user-agent': 'crm-platform-automation/1.2.3-test',
      'webhook-id': `msg_${runId}_0`,
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'webhook-signature': expect.stringMatching(/^v1,/),
    });
    expect(JSON.parse(post.body)).toEqual({
      tenant_id: a.tenantId,
      record_id: leadId,
      module: 'leads',
      variables: {
        record: { id: leadId, email: 'ann@hot.example', status: 'new', source: expect.anything() },
        event: { id: event.id, type: 'lead.created', occurred_at: event.occurred_at },
        steps: [],
      },
    });
    // Any Standard Webhooks library verifies it: svix's own.
    const headers = {
      'webhook-id': String(post.headers['webhook-id']),
      'webhook-timestamp': String(post.headers['webhook-timestamp']),
      'webhook-signature': String(post.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(post.body, headers)).toEqual(JSON.parse(post.body));
    expect(() => new Webhook(secret).verify(post.body.replace('ann@', 'bob@'), headers)).toThrow();
  });

  it('GET has no body and no Content-Type, but the custom headers and a signature', () => {
    const get = receiver.received[1];
    expect(get.body).toBe('');
    expect(get.headers['content-type']).toBeUndefined();
    expect(get.headers['content-length']).toBeUndefined();
    expect(get.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it('later steps see earlier ones in variables.steps', () => {
    const patch = JSON.parse(receiver.received[3].body);
    expect(patch.variables.steps).toEqual([
      { position: 0, name: 'post', type: 'webhook', status: 'success', response_status: 200 },
      { position: 1, name: null, type: 'webhook', status: 'success', response_status: 200 },
      { position: 2, name: null, type: 'webhook', status: 'failed', response_status: 500 },
      { position: 3, name: null, type: 'webhook', status: 'failed', response_status: null },
    ]);
  });

  it('GET /api/automations/runs/:id: steps with the exact messages; the 500 and the dead receiver fail, the next node still runs', async () => {
    const res = await sessionClient(stack.url, a.cookie).get(`/api/automations/runs/${runId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.run).toMatchObject({ id: runId, status: 'failed', record_id: leadId });
    expect(
      res.body.data.run.steps.map(
        (s: { status: string; message: string; response_status: number | null }) => [
          s.status,
          s.message,
          s.response_status,
        ],
      ),
    ).toEqual([
      ['success', `Webhook POST ${receiver.url}/hook → 200`, 200],
      ['success', `Webhook GET ${receiver.url}/get?x=1 → 200`, 200],
      ['failed', `Webhook PUT ${receiver.url}/fail → 500`, 500],
      [
        'failed',
        `Webhook POST http://127.0.0.1:${deadPort}/dead → error: connection refused`,
        null,
      ],
      ['success', `Webhook PATCH ${receiver.url}/after → 200`, 200],
    ]);
    const page = await sessionClient(stack.url, a.cookie).get(
      `/api/automations/workflows/${workflowId}/runs`,
    );
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 1, page: 1, totalPages: 1 });
    expect(page.body.items[0]).toMatchObject({ id: runId, status: 'failed' });
    expect(
      (await sessionClient(stack.url, b.cookie).get(`/api/automations/runs/${runId}`)).status,
    ).toBe(404);
  });

  it('a redelivered event runs nothing again and sends nothing twice', async () => {
    const [event] = (await outboxEvents(stack.database, a.tenantId))
      .map((e) => e.envelope as unknown as EventEnvelope)
      .filter((e) => e.record.id === leadId);
    // A second consumer instance handed the same event (what a redelivery after a lost ack is).
    const config = loadConfig('automation', service.configSchema, ENV);
    const { engine, outbound } = createEngine(
      {
        db: stack.database.db,
        logger: stack.gateway.deps.logger,
        internalTokenSecret: TEST_INTERNAL_TOKEN_SECRET,
        version: 'x',
      },
      config,
    );
    await engine.handleEvent(event);
    await engine.handleEvent(event);
    await engine.drain();
    outbound.close();
    expect(receiver.received).toHaveLength(4);
    expect(await runsOf(a.tenantId)).toHaveLength(1);
  });
});

describe("one tenant's dead receiver does not stall another tenant's workflows", () => {
  it("tenant D's webhook arrives while tenant C's runs still wait on a receiver that never answers", async () => {
    const c = await tenantSession(stack, stack.database);
    const d = await tenantSession(stack, stack.database);
    const workflowTo = async (session: Session, path: string) => {
      const res = await sessionClient(stack.url, session.cookie).post(
        '/api/automations/workflows',
        {
          name: path,
          trigger: { event: 'lead.created' },
          nodes: [{ type: 'webhook', config: { url: `${receiver.url}${path}`, method: 'POST' } }],
        },
      );
      expect(res.status).toBe(201);
    };
    await workflowTo(c, '/slow');
    await workflowTo(d, '/quick');
    // More of C's runs than its concurrency allows (4), all hanging until the 3 s timeout.
    await importLeads(
      c,
      Array.from({ length: 8 }, (_, i) => ({ email: `c${i}@slow.example`, status: 'new' })),
    );
    await importLeads(d, [{ email: 'd@quick.example', status: 'new' }]);
    await eventually(() => {
      expect(receiver.received.filter((r) => r.path === '/quick')).toHaveLength(1);
    }, 20_000);
    const cRuns = await runsOf(c.tenantId);
    expect(cRuns).toHaveLength(8);
    expect(cRuns.every((r) => r.status === 'running')).toBe(true);
    // C's receiver got at most its per-tenant share at once.
    expect(receiver.received.filter((r) => r.path === '/slow').length).toBeLessThanOrEqual(4);
  });
});
