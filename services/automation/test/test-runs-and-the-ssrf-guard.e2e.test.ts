import { withSystemScope } from '@crm/shared/db';
import { sessionClient, tenantSession, testDb, useServiceBehindGateway } from '@crm/test-kit';
import { service } from '../src/main';
import { startReceiver, type Receiver } from './support/receiver';

/**
 * Issue 11, items 5 and 10: POST /api/automations/workflows/:id/test runs a workflow once on a
 * sample record; with the SSRF guard on (the default), loopback, link-local and a DNS name
 * resolving to loopback are refused at connect time and nothing reaches the receiver.
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

async function workflowWith(stack: Stack, cookie: string, urls: string[]) {
  const res = await sessionClient(stack.url, cookie).post('/api/automations/workflows', {
    name: 'test me',
    trigger: { event: 'deal.created' },
    nodes: urls.map((url) => ({ type: 'webhook', config: { url, method: 'POST' } })),
  });
  expect(res.status).toBe(201);
  return res.body.data.workflow.id as string;
}

describe('with the guard on (default)', () => {
  it('refuses loopback, link-local, a name resolving to loopback and v4-mapped v6; nothing arrives', async () => {
    const owner = await tenantSession(guarded, database);
    const port = receiver.port;
    const urls = [
      `http://127.0.0.1:${port}/a`,
      'http://169.254.169.254/latest/meta-data',
      `http://localhost:${port}/b`,
      `http://[::1]:${port}/c`,
      `http://[::ffff:127.0.0.1]:${port}/d`,
      `http://10.0.0.1:${port}/e`,
    ];
    const id = await workflowWith(guarded, owner.cookie, urls);
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
