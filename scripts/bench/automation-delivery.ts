import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../libs/shared/src/config';
import { withSystemScope, type Db } from '../../libs/shared/src/db';
import { InProcessBus, NatsBus, OutboxRelay, type EventBus } from '../../libs/shared/src/events';
import { silentLogger } from '../../libs/shared/src/logger';
import { closeServer, listen, startWorkers, stopWorkers } from '../../libs/shared/src/service';
import { service as automation } from '../../services/automation/src/main';
import { service as crmApi } from '../../services/crm-api/src/main';
import { service as gateway } from '../../services/gateway/src/main';
import { benchDeps, benchSession } from './bench-deps';

interface Result {
  name: string;
  operations: number;
  seconds: number;
  perSecond: number;
  p50Ms?: number;
  p99Ms?: number;
}

const percentile = (sorted: number[], p: number) =>
  Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(3));

/**
 * Gateway + crm-api + automation (default concurrency limits) on one bus
 * (JetStream when NATS answers, else in-process) with the outbox relay, one workflow (one POST
 * webhook node) and a local receiver that answers 200 at once.
 *
 * - latency: a one-lead import's response (its transaction has committed) -> the receiver
 *   gets the request, over `latencyEvents` sequential imports;
 * - work-off: one import of 10,000 leads -> the 10,000th webhook received.
 */
export async function automationDelivery(
  database: Db,
  tenantId: string,
  options: { latencyEvents?: number; bulk?: number; natsUrl?: string } = {},
): Promise<Result[]> {
  const latencyEvents = options.latencyEvents ?? 200;
  const bulk = options.bulk ?? 10_000;
  const natsUrl = options.natsUrl ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const nats = await NatsBus.connect({
    url: natsUrl,
    logger: silentLogger(),
    streamName: `BENCH_AUTO_${process.pid}`,
    subjectPrefix: `bench_auto_${process.pid}.events`,
  }).catch(() => undefined);
  const bus: EventBus = nats ?? new InProcessBus({ logger: silentLogger() });
  const transport = nats ? 'NATS JetStream' : 'in-process bus';

  // The receiver: resolves the waiter of each lead's email as its webhook arrives.
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  let count = 0;
  let onCount: (() => void) | undefined;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end();
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        variables: { record: { email: string } };
      };
      const email = body.variables.record.email;
      arrived.set(email, at);
      count++;
      waiters.get(email)?.();
      onCount?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const deps = benchDeps(database, bus);
  const crmConfig = loadConfig('crm-api', crmApi.configSchema, {});
  const autoConfig = loadConfig('automation', automation.configSchema, {
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  const crm = await listen(crmApi.createApp(deps, crmConfig), 0, '127.0.0.1');
  const auto = await listen(automation.createApp(deps, autoConfig), 0, '127.0.0.1');
  // Earlier scenarios leave events in the outbox with no relay running: not this one's work.
  await withSystemScope(database.db, (trx) =>
    trx
      .updateTable('event_outbox')
      .set({ published_at: new Date() })
      .where('published_at', 'is', null)
      .execute(),
  );
  const workers = await startWorkers(automation, deps, autoConfig);
  const relay = new OutboxRelay({ ...deps, logger: silentLogger() });
  await relay.start();
  const url = (s: typeof crm) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const gw = await listen(
    gateway.createApp(
      deps,
      loadConfig('gateway', gateway.configSchema, {
        CRM_API_URL: url(crm),
        AUTOMATION_URL: url(auto),
        RATE_LIMIT_PLANS: 'free=100000000',
      }),
    ),
    0,
    '127.0.0.1',
  );
  const gwUrl = url(gw);
  const results: Result[] = [];
  try {
    const cookie = await benchSession(database, tenantId, gwUrl, 'bench-auto');
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${gwUrl}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    await post('/api/automations/workflows', {
      name: 'bench',
      trigger: { event: 'lead.created' },
      nodes: [{ type: 'webhook', config: { url: receiverUrl, method: 'POST' } }],
    });

    const latencies: number[] = [];
    const start = performance.now();
    for (let i = 0; i < latencyEvents; i++) {
      const lead = `lat-${process.pid}-${i}@example.com`;
      const got = new Promise<void>((resolve) => waiters.set(lead, resolve));
      await post('/api/v1/import/leads', { leads: [{ email: lead, status: 'new' }] });
      const committed = performance.now();
      await got;
      latencies.push((arrived.get(lead) as number) - committed);
    }
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    results.push({
      name: `lead import commit -> workflow webhook received (${transport})`,
      operations: latencyEvents,
      seconds: Number(seconds.toFixed(3)),
      perSecond: Math.round(latencyEvents / seconds),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    });

    const before = count;
    const allIn = new Promise<void>((resolve) => {
      onCount = () => {
        if (count - before >= bulk) resolve();
      };
    });
    const leads = Array.from({ length: bulk }, (_, i) => ({
      email: `bulk-${process.pid}-${i}@example.com`,
      status: 'new',
    }));
    const bulkStart = performance.now();
    await post('/api/v1/import/leads', { leads });
    const imported = performance.now();
    await allIn;
    const workOff = (performance.now() - imported) / 1000;
    results.push({
      name: `${bulk.toLocaleString('en')} lead.created of one import -> delivered webhooks (${transport})`,
      operations: bulk,
      seconds: Number(workOff.toFixed(3)),
      perSecond: Math.round(bulk / workOff),
    });
    process.stdout.write(
      `  (the ${bulk} imports' request took ${Math.round(imported - bulkStart)} ms; the rate counts from its response)\n`,
    );
  } finally {
    await closeServer(gw, 1000);
    await closeServer(auto, 1000);
    await closeServer(crm, 1000);
    await stopWorkers(workers);
    await relay.stop();
    await new Promise<void>((resolve) => {
      receiver.closeAllConnections();
      receiver.close(() => resolve());
    });
    if (nats) await nats.deleteStream().catch(() => undefined);
    await bus.close();
  }
  return results;
}
