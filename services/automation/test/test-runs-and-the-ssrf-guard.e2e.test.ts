import { withSystemScope } from '@crm/shared/db';
import { sessionClient, tenantSession, testDb, useServiceBehindGateway } from '@crm/test-kit';
import { service } from '../src/main';
import { startReceiver, type Receiver } from './support/receiver';

/**
 * POST /api/automations/workflows/:id/test runs a workflow once on a sample record. With the
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

const workflowBody = (urls: string[]) => ({
  name: 'test me',
  trigger: { event: 'deal.created' },
  nodes: urls.map((url) => ({ type: 'webhook', config: { url, method: 'POST' } })),
});

async function workflowWith(stack: Stack, cookie: string, urls: string[]) {
  const res = await sessionClient(stack.url, cookie).post(
    '/api/automations/workflows',
    workflowBody(urls),
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
