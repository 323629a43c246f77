import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../libs/shared/src/crypto';
import { withSystemScope } from '../../libs/shared/src/db';
import {
  addMember,
  createTenant,
  eventually,
  insertRow,
  isolatedTestDb,
  startServiceProcess,
  type ServiceProcess,
} from '../../libs/shared/src/testing';
import { freePortForTests } from '../../libs/test-kit/src/ports';

/*
 * One trace crosses the platform. gateway, crm-api, webhook-ingest and
 * automation run as their own processes (as deployed) with OTEL_EXPORTER_OTLP_ENDPOINT pointed at
 * an OTLP/HTTP receiver this test runs, on a database and a nats-server of their own. A lead
 * import through the gateway and a signed network delivery each trigger a webhook workflow; the
 * exported spans must form one trace from the client's request to the outbound webhook, whose
 * `traceparent` the test's receiver sees.
 */
interface ExportedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** A Postgres span's SQL: `db.query.text` (`db.statement` in the older conventions). */
  statement?: string;
}

const SPAN_KIND = { SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
const SECRET = 'trace-test-internal-token-secret-0123456789';
const NETWORK_SECRET = 'trace-test-network-secret';
const PASSWORD = 'trace test password';

/** OTLP/JSON ids are hex, or base64 from some exporters: always hex here. */
const hex = (id: unknown) =>
  typeof id === 'string' && !/^[0-9a-f]*$/.test(id)
    ? Buffer.from(id, 'base64').toString('hex')
    : String(id ?? '');

function spansOf(body: unknown): ExportedSpan[] {
  const resourceSpans = (body as { resourceSpans?: unknown[] }).resourceSpans ?? [];
  return resourceSpans.flatMap((rs) => {
    const { resource, scopeSpans = [] } = rs as {
      resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
      scopeSpans?: { spans?: Record<string, unknown>[] }[];
    };
    const service =
      resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
    return scopeSpans.flatMap((scope) =>
      (scope.spans ?? []).map((span) => {
        const attributes = (span.attributes ?? []) as {
          key: string;
          value: { stringValue?: string };
        }[];
        const attribute = (key: string) => attributes.find((a) => a.key === key)?.value.stringValue;
        return {
          service,
          name: String(span.name),
          kind: Number(span.kind),
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          statement: attribute('db.query.text') ?? attribute('db.statement'),
        };
      }),
    );
  });
}

async function listenOn(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const natsPresent = Boolean(process.env.TEST_NATS_URL);

(natsPresent ? describe : describe.skip)('one trace across the platform (real processes)', () => {
  const spans: ExportedSpan[] = [];
  const hooks: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        try {
          spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString())));
        } catch {
          // not JSON (protobuf): the services are configured for JSON, so nothing to collect
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hooks.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(204).end();
    });
  });
  let database: Awaited<ReturnType<typeof isolatedTestDb>>;
  let nats: ChildProcess;
  let natsStore: string;
  const services: ServiceProcess[] = [];
  let gatewayUrl: string;
  let receiverUrl: string;
  let cookie: string;
  let tenantId: string;

  beforeAll(async () => {
    database = await isolatedTestDb();
    const collectorUrl = await listenOn(collector);
    receiverUrl = await listenOn(receiver);
    // A nats-server of its own: automation's durable consumer must not take other tests' events.
    const natsPort = await freePortForTests();
    natsStore = mkdtempSync(join(tmpdir(), 'trace-nats-'));
    nats = spawn(
      'nats-server',
      ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', natsStore],
      {
        stdio: 'ignore',
        env: { PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` },
      },
    );
    const ports = {
      gateway: await freePortForTests(),
      'crm-api': await freePortForTests(),
      'webhook-ingest': await freePortForTests(),
      automation: await freePortForTests(),
    };
    const common = {
      DATABASE_URL: database.url,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      INTERNAL_TOKEN_SECRET: SECRET,
      HOST: '127.0.0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    // Each one recorded as soon as it is up, so afterAll stops it whatever happens next.
    const up = (service: Promise<ServiceProcess>) => service.then((p) => void services.push(p));
    await Promise.all([
      up(startServiceProcess('crm-api', { ...common, CRM_API_PORT: String(ports['crm-api']) })),
      up(
        startServiceProcess('webhook-ingest', {
          ...common,
          WEBHOOK_INGEST_PORT: String(ports['webhook-ingest']),
          NETWORK_WEBHOOK_SECRET: NETWORK_SECRET,
        }),
      ),
      up(
        startServiceProcess('automation', {
          ...common,
          AUTOMATION_PORT: String(ports.automation),
          OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
        }),
      ),
      up(
        startServiceProcess('gateway', {
          ...common,
          GATEWAY_PORT: String(ports.gateway),
          CRM_API_URL: `http://127.0.0.1:${ports['crm-api']}`,
          WEBHOOK_INGEST_URL: `http://127.0.0.1:${ports['webhook-ingest']}`,
          AUTOMATION_URL: `http://127.0.0.1:${ports.automation}`,
        }),
      ),
    ]);
    gatewayUrl = `http://127.0.0.1:${ports.gateway}`;

    tenantId = (await createTenant(database)).id;
    const email = `tracer-${randomUUID().slice(0, 8)}@example.test`;
    const passwordHash = await hashPassword(PASSWORD);
    const user = await withSystemScope(database.db, (trx) =>
      trx
        .insertInto('users')
        .values({ email, name: 'Tracer', password_hash: passwordHash })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    await addMember(database, tenantId, user.id, 'owner');
    const signIn = await fetch(`${gatewayUrl}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    nats?.kill('SIGTERM');
    rmSync(natsStore, { recursive: true, force: true });
    await new Promise((resolve) => collector.close(resolve));
    await new Promise((resolve) => receiver.close(resolve));
    await database?.close();
  }, 60_000);

  async function createWorkflow(event: string, path: string): Promise<void> {
    const res = await fetch(`${gatewayUrl}/api/automations/workflows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({
        name: `trace ${event}`,
        enabled: true,
        trigger: { event },
        nodes: [
          {
            type: 'webhook',
            name: 'hook',
            config: { url: `${receiverUrl}${path}`, method: 'POST' },
          },
        ],
      }),
    });
    expect(res.status).toBe(201);
  }

  async function hookAt(path: string): Promise<{ traceId: string; parentSpanId: string }> {
    return eventually(
      () => {
        const hook = hooks.find((h) => h.path === path);
        expect(hook).toBeDefined();
        const traceparent = String(hook?.headers.traceparent ?? '');
        expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
        const [, traceId, parentSpanId] = traceparent.split('-');
        return { traceId, parentSpanId };
      },
      30_000,
      100,
    );
  }

  /**
   * Asserts the chain of `steps` in one trace: each a span of that service, name and kind (and,
   * for a Postgres span, SQL statement).
   */
  async function expectTrace(
    traceId: string,
    outboundSpanId: string,
    steps: { service: string | RegExp; name: RegExp; kind?: number; statement?: RegExp }[],
  ): Promise<ExportedSpan[]> {
    return eventually(
      () => {
        const trace = spans.filter((span) => span.traceId === traceId);
        for (const step of steps) {
          expect({
            step: `${step.service} ${step.name}`,
            found: trace.some(
              (span) =>
                (typeof step.service === 'string'
                  ? span.service === step.service
                  : step.service.test(span.service)) &&
                step.name.test(span.name) &&
                (step.kind === undefined || span.kind === step.kind) &&
                (step.statement === undefined || step.statement.test(span.statement ?? '')),
            ),
          }).toEqual({ step: `${step.service} ${step.name}`, found: true });
        }
        // The webhook's traceparent names automation's own client span of that request.
        expect(trace.find((span) => span.spanId === outboundSpanId)).toMatchObject({
          service: 'automation',
          kind: SPAN_KIND.CLIENT,
        });
        return trace;
      },
      30_000,
      200,
    );
  }

  it('a lead import: gateway -> crm-api -> Postgres insert -> relay publish -> automation run -> webhook', async () => {
    await createWorkflow('lead.created', '/lead-hook');
    const res = await fetch(`${gatewayUrl}/api/v1/import/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({
        leads: [{ email: `traced-${randomUUID().slice(0, 8)}@example.test` }],
      }),
    });
    expect(res.status).toBe(200);
    const hook = await hookAt('/lead-hook');
    const trace = await expectTrace(hook.traceId, hook.parentSpanId, [
      { service: 'gateway', name: /^POST/, kind: SPAN_KIND.SERVER },
      { service: 'gateway', name: /^POST/, kind: SPAN_KIND.CLIENT },
      { service: 'crm-api', name: /^POST/, kind: SPAN_KIND.SERVER },
      { service: 'crm-api', name: /import\/leads/ },
      // The lead's INSERT itself, not any statement of the request (its BEGIN or SELECTs).
      {
        service: 'crm-api',
        name: /^pg\.query:INSERT\b/,
        kind: SPAN_KIND.CLIENT,
        statement: /^\s*INSERT INTO crm_leads\b/i,
      },
      {
        service: /^(crm-api|webhook-ingest)$/,
        name: /^publish lead\.created$/,
        kind: SPAN_KIND.PRODUCER,
      },
      { service: 'automation', name: /^process lead\.created$/, kind: SPAN_KIND.CONSUMER },
      { service: 'automation', name: /^workflow run$/ },
    ]);
    // The client's request is the root: every other span descends from it.
    const roots = trace.filter((span) => !span.parentSpanId);
    expect(roots).toEqual([
      expect.objectContaining({ service: 'gateway', kind: SPAN_KIND.SERVER }),
    ]);
  }, 90_000);

  it('a signed network delivery: gateway -> webhook-ingest -> relay publish -> automation run -> webhook', async () => {
    await createWorkflow('network.activity', '/network-hook');
    const externalAccountId = `acc-${randomUUID()}`;
    await insertRow(database, 'network_accounts', {
      proven_at: new Date(), // a proven claim: its deliveries are routed
      tenant_id: tenantId,
      external_account_id: externalAccountId,
    });
    const raw = JSON.stringify({
      id: `evt-${randomUUID()}`,
      type: 'INVITATION_SENT',
      account_id: externalAccountId,
      occurred_at: new Date().toISOString(),
      actor: { name: 'Ann Example' },
    });
    const t = Math.floor(Date.now() / 1000);
    const res = await fetch(`${gatewayUrl}/api/webhooks/network`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-network-signature': `t=${t},v1=${createHmac('sha256', NETWORK_SECRET).update(`${t}.${raw}`).digest('hex')}`,
      },
      body: raw,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, inserted: 1 });
    const hook = await hookAt('/network-hook');
    const trace = await expectTrace(hook.traceId, hook.parentSpanId, [
      { service: 'gateway', name: /^POST/, kind: SPAN_KIND.SERVER },
      { service: 'webhook-ingest', name: /^POST/, kind: SPAN_KIND.SERVER },
      // The delivery's INSERT itself, not any statement of the request.
      {
        service: 'webhook-ingest',
        name: /^pg\.query:INSERT\b/,
        kind: SPAN_KIND.CLIENT,
        statement: /^\s*INSERT INTO network_events\b/i,
      },
      // Any relay publishes any committed row (one at a time, under an advisory lock): here
      // crm-api's or webhook-ingest's.
      {
        service: /^(crm-api|webhook-ingest)$/,
        name: /^publish network\.activity$/,
        kind: SPAN_KIND.PRODUCER,
      },
      { service: 'automation', name: /^process network\.activity$/, kind: SPAN_KIND.CONSUMER },
      { service: 'automation', name: /^workflow run$/ },
    ]);
    // The provider's request is the root: every other span descends from it.
    const roots = trace.filter((span) => !span.parentSpanId);
    expect(roots).toEqual([
      expect.objectContaining({ service: 'gateway', kind: SPAN_KIND.SERVER }),
    ]);
  }, 90_000);
});
