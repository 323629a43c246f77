import { withSystemScope, withTenant } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import {
  addMember,
  createAccount,
  sessionClient,
  signIn,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { service } from '../src/main';
import { startReceiver, type Receiver } from './support/receiver';

/**
 * POST /api/automations/workflows/:id/test runs a workflow once on a sample record, or on one
 * of the tenant's recent events (`eventId`) as if that event had triggered it. With the
 * SSRF guard on (the default), saving a workflow refuses a webhook URL whose host is a literal
 * non-public address or localhost (400, nothing written), and at send time loopback,
 * link-local, private, the IPv6 forms that carry them and a DNS name resolving to loopback are
 * refused at connect time, so nothing reaches the receiver. OUTBOUND_ALLOW_PRIVATE_NETWORKS
 * turns both off.
 */
const database = testDb();
const guarded = useServiceBehindGateway(service);
const open = useServiceBehindGateway(service, {
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  OUTBOUND_TIMEOUT_MS: '1000',
});
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await database.close();
});

type Stack = typeof guarded;

const workflowBody = (urls: string[], trigger = 'deal.created') => ({
  name: 'test me',
  trigger: { event: trigger },
  nodes: urls.map((url) => ({ type: 'webhook', config: { url, method: 'POST' } })),
});

async function workflowWith(stack: Stack, cookie: string, urls: string[], trigger?: string) {
  const res = await sessionClient(stack.url, cookie).post(
    '/api/automations/workflows',
    workflowBody(urls, trigger),
  );
  expect(res.status).toBe(201);
  return res.body.data.workflow.id as string;
}

const storedWorkflows = (tenantId: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('automation_workflows')
      .select(['id', 'nodes'])
      .where('tenant_id', '=', tenantId)
      .execute(),
  );

describe('saving, with the guard on (default)', () => {
  it.each([
    ['http://127.0.0.1:9/x', '127.0.0.1 is loopback'],
    ['http://[::7f00:1]/x', '[::7f00:1] is IPv4-compatible IPv6 (deprecated)'],
    ['http://[::127.0.0.1]/x', '[::7f00:1] is IPv4-compatible IPv6 (deprecated)'],
    ['http://[::ffff:10.0.0.1]/x', '[::ffff:a00:1] is private'],
    ['http://[64:ff9b::7f00:1]/x', '[64:ff9b::7f00:1] is loopback'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is link-local'],
    ['http://0x7f.1/x', '127.0.0.1 is loopback'],
    ['http://localhost:8080/x', 'localhost is loopback'],
    ['http://[fec0::1]/x', '[fec0::1] is site-local (deprecated)'],
  ])('refuses %s: 400 naming the host, no workflow row', async (url, refusal) => {
    const owner = await tenantSession(guarded, database);
    const res = await sessionClient(guarded.url, owner.cookie).post(
      '/api/automations/workflows',
      workflowBody(['https://hooks.example.com/first', url]),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      code: 'VALIDATION_ERROR',
      message: `Invalid workflow: nodes.1.config.url: webhook URL must point to a public address: ${refusal}`,
    });
    expect(await storedWorkflows(owner.tenantId)).toEqual([]);
  });

  it('refuses such a URL in a change too, and the stored workflow stays as it was', async () => {
    const owner = await tenantSession(guarded, database);
    const id = await workflowWith(guarded, owner.cookie, ['https://hooks.example.com/crm']);
    const before = await storedWorkflows(owner.tenantId);
    const res = await sessionClient(guarded.url, owner.cookie).patch(
      `/api/automations/workflows/${id}`,
      { nodes: workflowBody(['http://[::1]:9/x']).nodes },
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'Invalid workflow change: nodes.0.config.url: webhook URL must point to a public address: [::1] is loopback',
    );
    expect(await storedWorkflows(owner.tenantId)).toEqual(before);
  });

  it('saves public hosts, literal or named (a name is judged when it is resolved)', async () => {
    const owner = await tenantSession(guarded, database);
    const urls = [
      'https://hooks.example.com/crm',
      'http://8.8.8.8/x',
      'http://[2606:4700:4700::1111]/x',
      'http://[64:ff9b::808:808]/x',
    ];
    const id = await workflowWith(guarded, owner.cookie, urls);
    expect((await storedWorkflows(owner.tenantId)).map((w) => w.id)).toEqual([id]);
  });
});

describe('sending, with the guard on (default)', () => {
  it('refuses loopback, link-local, private, the IPv6 forms carrying them and a name resolving to loopback; nothing arrives', async () => {
    const owner = await tenantSession(guarded, database);
    const port = receiver.port;
    const urls = [
      `http://127.0.0.1:${port}/a`,
      'http://169.254.169.254/latest/meta-data',
      `http://localhost:${port}/b`,
      `http://[::1]:${port}/c`,
      `http://[::ffff:127.0.0.1]:${port}/d`,
      `http://10.0.0.1:${port}/e`,
      `http://[::127.0.0.1]:${port}/f`,
      `http://[64:ff9b::127.0.0.1]:${port}/g`,
    ];
    // Saved where the allow-flag is on (development), or before the save-time rule existed:
    // the send-time check is what stands between such a row and the network.
    const id = await workflowWith(open, owner.cookie, urls);
    const res = await sessionClient(guarded.url, owner.cookie).post(
      `/api/automations/workflows/${id}/test`,
      {},
    );
    expect(res.status).toBe(200);
    expect(res.body.data.run).toMatchObject({ status: 'failed', is_test: true, event_id: null });
    const messages = res.body.data.run.steps.map((s: { message: string }) => s.message);
    expect(messages).toEqual([
      `Webhook POST ${urls[0]} → error: blocked: 127.0.0.1 is not a public address (loopback)`,
      `Webhook POST ${urls[1]} → error: blocked: 169.254.169.254 is not a public address (linkLocal)`,
      expect.stringMatching(
        new RegExp(
          `^Webhook POST ${urls[2]} → error: blocked: localhost resolves to .+, not a public address \\(loopback\\)$`,
        ),
      ),
      `Webhook POST ${urls[3]} → error: blocked: ::1 is not a public address (loopback)`,
      // The URL parser writes the v4-mapped address in hex; it is judged as the v4 it carries.
      `Webhook POST ${urls[4]} → error: blocked: ::ffff:7f00:1 is not a public address (loopback)`,
      `Webhook POST ${urls[5]} → error: blocked: 10.0.0.1 is not a public address (private)`,
      `Webhook POST ${urls[6]} → error: blocked: ::7f00:1 is not a public address (ipv4Compatible)`,
      `Webhook POST ${urls[7]} → error: blocked: 64:ff9b::7f00:1 is not a public address (loopback)`,
    ]);
    expect(receiver.received).toEqual([]);
  });
});

describe('POST /api/automations/workflows/:id/test', () => {
  it('runs once now on the sample record, records a test run, answers it with its steps', async () => {
    const owner = await tenantSession(open, database);
    const id = await workflowWith(open, owner.cookie, [
      `${receiver.url}/one`,
      `${receiver.url}/fail`,
    ]);
    const res = await sessionClient(open.url, owner.cookie).post(
      `/api/automations/workflows/${id}/test`,
      { record: { id: 'deal-42', title: 'Big deal' }, module: 'deals' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Test run finished' });
    const run = res.body.data.run;
    expect(run).toMatchObject({
      workflow_id: id,
      is_test: true,
      event_id: null,
      event_type: 'deal.created',
      module: 'deals',
      record_id: 'deal-42',
      status: 'failed',
    });
    expect(run.steps.map((s: { status: string }) => s.status)).toEqual(['success', 'failed']);
    const sent = receiver.received.filter((r) => r.path === '/one');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toMatchObject({
      tenant_id: owner.tenantId,
      record_id: 'deal-42',
      module: 'deals',
      variables: { record: { id: 'deal-42', title: 'Big deal' }, event: { type: 'deal.created' } },
    });
    const rows = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('workflow_run_steps').selectAll().where('run_id', '=', run.id).execute(),
    );
    expect(rows).toHaveLength(2);
  });

  it('a timeout fails its step, a redirect is not followed, an endless body is cut off', async () => {
    const owner = await tenantSession(open, database);
    const urls = [`${receiver.url}/slow`, `${receiver.url}/redirect`, `${receiver.url}/endless`];
    const id = await workflowWith(open, owner.cookie, urls);
    const res = await sessionClient(open.url, owner.cookie).post(
      `/api/automations/workflows/${id}/test`,
      {},
    );
    expect(res.status).toBe(200);
    expect(
      res.body.data.run.steps.map((s: { status: string; message: string }) => [
        s.status,
        s.message,
      ]),
    ).toEqual([
      ['failed', `Webhook POST ${urls[0]} → error: timed out after 1000 ms`],
      ['failed', `Webhook POST ${urls[1]} → 302`],
      ['success', `Webhook POST ${urls[2]} → 200`],
    ]);
    expect(receiver.received.filter((r) => r.path === '/landed')).toEqual([]);
  });

  it('another tenant gets 404; a bad body is 400 and runs nothing', async () => {
    const owner = await tenantSession(open, database);
    const other = await tenantSession(open, database);
    const id = await workflowWith(open, owner.cookie, [`${receiver.url}/two`]);
    expect(
      (
        await sessionClient(open.url, other.cookie).post(
          `/api/automations/workflows/${id}/test`,
          {},
        )
      ).status,
    ).toBe(404);
    const bad = await sessionClient(open.url, owner.cookie).post(
      `/api/automations/workflows/${id}/test`,
      { record: 'nope' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(receiver.received.filter((r) => r.path === '/two')).toEqual([]);
  });
});

describe('POST /api/automations/workflows/:id/test on a recent event (eventId)', () => {
  type Session = Awaited<ReturnType<typeof tenantSession>>;
  let owner: Session;
  let other: Session;
  let viewerCookie: string;
  let workflowId: string;
  let eventId: string;
  let othersEventId: string;

  /** A deal's stage changed, as crm-api records it: an outbox row of the tenant. */
  const stageChanged = (tenantId: string, dealId: string) =>
    withTenant(database.db, tenantId, (trx) =>
      writeEvent(trx, {
        type: 'deal.stage_changed',
        tenant_id: tenantId,
        record: { module: 'deals', id: dealId },
        data: { title: 'Big deal', stage: 'won', amount: 1200 },
      }),
    );
  const runsOf = (tenantId: string) =>
    withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('workflow_runs')
        .select(['id', 'workflow_id', 'event_id', 'is_test', 'record_id', 'context'])
        .where('tenant_id', '=', tenantId)
        .execute(),
    );
  const test = (cookie: string, body: unknown, id = workflowId) =>
    sessionClient(open.url, cookie).post(`/api/automations/workflows/${id}/test`, body);

  beforeAll(async () => {
    owner = await tenantSession(open, database);
    other = await tenantSession(open, database);
    const viewer = await createAccount(database, 'viewer');
    await addMember(database, owner.tenantId, viewer.id, 'viewer');
    viewerCookie = await signIn(open.gateway.app, viewer.email);
    workflowId = await workflowWith(open, owner.cookie, [`${receiver.url}/on-event`], 'deal.*');
    // Disabled: the event itself must not run it (only the test run sends).
    expect(
      (
        await sessionClient(open.url, owner.cookie).patch(
          `/api/automations/workflows/${workflowId}`,
          { enabled: false },
        )
      ).status,
    ).toBe(200);
    eventId = (await stageChanged(owner.tenantId, 'deal-7')).id;
    othersEventId = (await stageChanged(other.tenantId, 'deal-of-other')).id;
  });

  it('runs on the event as if it had triggered the workflow, recorded as a test run', async () => {
    const event = (await sessionClient(open.url, owner.cookie).get('/api/events')).body.items[0];
    expect(event).toMatchObject({ id: eventId, type: 'deal.stage_changed' });

    const res = await test(owner.cookie, { eventId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Test run finished' });
    const run = res.body.data.run;
    expect(run).toMatchObject({
      workflow_id: workflowId,
      is_test: true,
      event_id: null,
      event_type: 'deal.stage_changed',
      module: 'deals',
      record_id: 'deal-7',
      status: 'success',
    });
    expect(run.steps).toEqual([
      {
        position: 0,
        node_type: 'webhook',
        node_name: null,
        status: 'success',
        message: `Webhook POST ${receiver.url}/on-event → 200`,
        response_status: 200,
        duration_ms: expect.any(Number),
      },
    ]);
    const sent = receiver.received.filter((r) => r.path === '/on-event');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body)).toEqual({
      tenant_id: owner.tenantId,
      record_id: 'deal-7',
      module: 'deals',
      variables: {
        record: { id: 'deal-7', title: 'Big deal', stage: 'won', amount: 1200 },
        event: { id: eventId, type: 'deal.stage_changed', occurred_at: event.occurred_at },
        steps: [],
      },
    });
    expect(sent[0].headers['webhook-id']).toBe(`msg_${run.id}_0`);
    // One run: the test run, holding the event it ran on (so a replay sends the same body).
    expect(await runsOf(owner.tenantId)).toEqual([
      {
        id: run.id,
        workflow_id: workflowId,
        event_id: null,
        is_test: true,
        record_id: 'deal-7',
        context: {
          record: { id: 'deal-7', title: 'Big deal', stage: 'won', amount: 1200 },
          event: { id: eventId, type: 'deal.stage_changed', occurred_at: event.occurred_at },
        },
      },
    ]);
  });

  it("another tenant's event or an unknown one is a 404; nothing runs", async () => {
    const before = await runsOf(owner.tenantId);
    for (const id of [othersEventId, '00000000-0000-4000-8000-000000000000']) {
      const res = await test(owner.cookie, { eventId: id });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        success: false,
        code: 'NOT_FOUND',
        message: 'Event not found',
      });
    }
    // Their own event on another tenant's workflow: the workflow is not theirs.
    const theirs = await test(other.cookie, { eventId: othersEventId });
    expect([theirs.status, theirs.body.message]).toEqual([404, 'Workflow not found']);
    expect(await runsOf(owner.tenantId)).toEqual(before);
    expect(await runsOf(other.tenantId)).toEqual([]);
    expect(receiver.received.filter((r) => r.path === '/on-event')).toHaveLength(1);
  });

  it('eventId with a sample record or module, or not a uuid, is a 400; nothing runs', async () => {
    const before = await runsOf(owner.tenantId);
    const refusals: Array<[unknown, string]> = [
      [
        { eventId, record: { id: 'deal-42' } },
        'Invalid test run: give either eventId or a sample record and module, not both',
      ],
      [
        { eventId, module: 'deals' },
        'Invalid test run: give either eventId or a sample record and module, not both',
      ],
      [
        { eventId: 'deal-7' },
        'Invalid test run: eventId: eventId must be the id of one of the recent events (a uuid)',
      ],
    ];
    for (const [body, message] of refusals) {
      const res = await test(owner.cookie, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', message });
    }
    expect(await runsOf(owner.tenantId)).toEqual(before);
    expect(receiver.received.filter((r) => r.path === '/on-event')).toHaveLength(1);
  });

  it('a viewer may not test (403), on an event as on a sample record; nothing runs', async () => {
    const before = await runsOf(owner.tenantId);
    for (const body of [{ eventId }, {}]) {
      const res = await test(viewerCookie, body);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect(await runsOf(owner.tenantId)).toEqual(before);
    expect(receiver.received.filter((r) => r.path === '/on-event')).toHaveLength(1);
  });
});
