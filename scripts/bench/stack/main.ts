/**
 * `npm run bench:stack` (and the first half of `npm run bench`): the scenarios of scenarios.ts,
 * each service in its own process as deployed (compiled JavaScript), concurrent load with
 * autocannon (warm-up, then measured; each pair alternated twice), beside bare baselines started in
 * the same run. Prints one table (figure, baseline, ratio, target, holds) and writes
 * bench/results/<date>-stack.json. Starts its own database (dropped at the end) and its own
 * nats-server (its store deleted at the end); stops everything it started, also on failure or
 * Ctrl-C.
 *
 * Environment (optional): DATABASE_URL (a server to create the bench database on; unset: an
 * embedded Postgres), CONNECTIONS (50), DURATION (10 s), WARM_UP (3 s),
 * ONLY=deals,single,batches,relay,import,rss (default all); ONLY=scale (never by default: it seeds
 * 2.4 million rows) runs the records-at-scale scenario of scale.ts, SCALE_ROWS (1,000,000) its size
 * (its other knobs, e.g. SCALE_EXPORT_ONLY and SCALE_BEFORE_ROOT, are in scale.ts); ONLY=console (never
 * by default) the console's initial JavaScript and, in Chromium, its leads list and search on the
 * same seeding (console.ts; CONSOLE_SAMPLES, 5), ONLY=scale,console both on one seeding;
 * ONLY=retention (never by default: it seeds 20 million rows) the hot paths on the growing tables
 * and the retention worker's cost at RETENTION_ROWS beside a near-empty database (retention.ts).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  createDb,
  dropDatabase,
  ensureDatabase,
  migrateToLatest,
  withDatabase,
} from '../../../libs/shared/src/db';
import { signIdentity } from '../../../libs/shared/src/identity';
import {
  freePort,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../../dev/embedded-postgres';
import { relayBacklog } from '../relay-backlog';
import { mean } from './load';
import { rssMb, startBare, startNatsServer, startService, stopAll, stopProcess } from './processes';
import { atLeastRow, atMostRow, printTable, ratioRow, writeResults, type Row } from './report';
import {
  batches,
  dealsThroughGateway,
  importVersusCopy,
  singleDeliveries,
  type Stack,
} from './scenarios';
import { recordsAtScale, scaleRows } from './scale';
import { consoleRows } from './console';
import { RETENTION_ROWS, retentionAtScale, retentionRows } from './retention';
import { BARE_SECRET } from './bare-http';
import { PORT_VARIABLES, type ServiceName } from '../../dev/ports';

const ONLY = new Set(
  (process.env.ONLY ?? 'deals,single,batches,relay,import,rss').split(',').map((s) => s.trim()),
);
const INTERNAL_TOKEN_SECRET = `bench-internal-token-secret-${randomUUID()}`;
const NETWORK_SECRET = 'bench-network-webhook-secret';
const SERVICES = Object.keys(PORT_VARIABLES) as ServiceName[];

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

export async function runStackBench(): Promise<Row[]> {
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({
      dataDir: `.data/bench-stack-${process.pid}`,
      port: await freePort(),
      persistent: false,
    });
    adminUrl = embedded.adminUrl;
  }
  const dbName = `crm_bench_stack_${process.pid}`;
  const databaseUrl = withDatabase(adminUrl, dbName);
  const database = createDb({ connectionString: databaseUrl, maxConnections: 5 });
  const sql = new Client({ connectionString: databaseUrl });
  const nats = await startNatsServer(await freePort());
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  try {
    await ensureDatabase(adminUrl, dbName);
    await migrateToLatest(database.db);
    await sql.connect();
    const ports = Object.fromEntries(
      await Promise.all(SERVICES.map(async (s) => [s, await freePort()])),
    );
    const url = (service: string) => `http://127.0.0.1:${ports[service]}`;
    const envOf = (service: string): Record<string, string> => ({
      DATABASE_URL: databaseUrl,
      NATS_URL: nats.url,
      INTERNAL_TOKEN_SECRET,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      [PORT_VARIABLES[service as ServiceName]]: String(ports[service]),
      NETWORK_WEBHOOK_SECRET: NETWORK_SECRET,
      PUBLIC_BASE_URL: url('gateway'),
      CRM_API_URL: url('crm-api'),
      WEBHOOK_INGEST_URL: url('webhook-ingest'),
      AUTOMATION_URL: url('automation'),
      MCP_INGEST_URL: url('mcp-ingest'),
      MIGRATE_URL: url('migrate'),
      // Limits out of reach: the bench measures throughput, not the limiter.
      RATE_LIMIT_PLANS: 'free=100000000,pro=100000000,enterprise=100000000',
      RATE_LIMIT_DEFAULT_PER_MINUTE: '100000000',
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '100000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000',
    });

    // First, while the stream is empty: automation started later would be working through
    // the events of the other scenarios, not idle.
    if (ONLY.has('rss')) {
      process.stderr.write('idle RSS of each service started alone (10 s after /health)\n');
      const rss: Record<string, number> = {};
      for (const service of SERVICES) {
        const child = await startService(service, ports[service], envOf(service));
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        rss[service] = await rssMb(child.pid ?? 0);
        await stopProcess(child);
        rows.push(atMostRow(`idle RSS, ${service} alone`, rss[service], 'MB', 80));
      }
      details.rss = rss;
    }

    if (['deals', 'single', 'batches', 'import'].some((s) => ONLY.has(s))) {
      process.stderr.write('starting crm-api, webhook-ingest and gateway (compiled)\n');
      const started = [];
      for (const service of ['crm-api', 'webhook-ingest', 'gateway'])
        started.push(await startService(service, ports[service], envOf(service)));
      const signUp = await fetch(`${url('gateway')}/api/auth/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `bench-${randomUUID().slice(0, 8)}@bench.example`,
          password: 'bench-password-123',
          name: 'Bench',
          tenantName: 'Bench',
        }),
      });
      if (signUp.status !== 201) throw new Error(`sign-up answered ${signUp.status}`);
      const cookie = signUp.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const { user, tenant } = (await json(signUp)).data as {
        user: { id: string };
        tenant: { id: string };
      };
      const headers = { 'content-type': 'application/json', cookie };
      for (let i = 0; i < 20; i++) {
        const deal = await fetch(`${url('gateway')}/api/crm/deals`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: `Bench deal ${i}`, value: 1000 + i }),
        });
        if (deal.status !== 201) throw new Error(`creating a deal answered ${deal.status}`);
      }
      const account = await fetch(`${url('gateway')}/api/integrations/network-accounts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ external_account_id: 'bench-account' }),
      });
      if (account.status !== 201) throw new Error(`network account answered ${account.status}`);
      const stack: Stack = {
        gatewayUrl: url('gateway'),
        crmApiUrl: url('crm-api'),
        cookie,
        identityHeader: signIdentity(
          { userId: user.id, tenantId: tenant.id, role: 'owner' },
          INTERNAL_TOKEN_SECRET,
          { ttlSeconds: 24 * 3600 },
        ),
        tenantId: tenant.id,
        networkSecret: NETWORK_SECRET,
        networkAccount: 'bench-account',
        sql,
      };

      if (ONLY.has('deals')) {
        process.stderr.write('GET /api/crm/deals: gateway vs direct\n');
        const r = await dealsThroughGateway(stack);
        details.deals = r;
        rows.push(
          ratioRow(
            'GET deals via gateway vs direct to crm-api',
            r.figure,
            r.baseline,
            'req/s',
            0.7,
          ),
        );
      }
      if (ONLY.has('single')) {
        process.stderr.write(
          'one signed network event per delivery: gateway vs bare proxied verifier\n',
        );
        const verifier = await startBare('verifier');
        const proxy = await startBare('proxy', String(verifier.port));
        try {
          const r = await singleDeliveries(stack, `http://127.0.0.1:${proxy.port}`, BARE_SECRET);
          details.single = r;
          rows.push(
            ratioRow(
              'signed delivery via gateway vs bare verifier+proxy',
              r.figure,
              r.baseline,
              'req/s',
              0.5,
            ),
          );
        } finally {
          await stopProcess(proxy.child);
          await stopProcess(verifier.child);
        }
      }
      if (ONLY.has('batches')) {
        process.stderr.write('500-event batches through the gateway\n');
        const r = await batches(stack);
        details.batches = r;
        rows.push(
          atLeastRow('500-event batches via gateway, stored', r.figure, 'events/s', 50_000),
        );
      }
      if (ONLY.has('import')) {
        process.stderr.write('10,000-lead import through the gateway vs COPY\n');
        const r = await importVersusCopy(stack);
        details.import = r;
        rows.push(
          ratioRow('10,000-lead import via gateway vs COPY', r.figure, r.baseline, 'rows/s', 0.5),
        );
      }
      for (const child of started) await stopProcess(child);
    }

    if (ONLY.has('scale') || ONLY.has('console')) {
      process.stderr.write(
        ONLY.has('scale')
          ? 'records at scale: lists, a record, its timeline and the CSV export\n'
          : 'the console at scale: its initial JavaScript, the leads list and its search\n',
      );
      // ONLY=scale,console measures both on one seeding.
      const r = await recordsAtScale({
        adminUrl,
        ports,
        envOf,
        api: ONLY.has('scale'),
        console: ONLY.has('console'),
      });
      const { console: consoleFigures, ...scale } = r;
      if (ONLY.has('scale')) details.scale = scale;
      if (consoleFigures) {
        details.console = { ...consoleFigures, rows: r.rows, seedingMs: r.seedingMs };
        rows.push(...consoleRows(consoleFigures));
      }
      if (ONLY.has('scale')) rows.push(...scaleRows(r));
    }

    if (ONLY.has('retention')) {
      process.stderr.write(
        'retention at scale: the relay claim, deliveries, the delivery log and the sweeps\n',
      );
      const r = await retentionAtScale({ adminUrl, envOf, networkSecret: NETWORK_SECRET });
      details.retention = r;
      rows.push(...retentionRows(r));
    }

    if (ONLY.has('relay')) {
      process.stderr.write('outbox relay draining 20,000 events vs bare JetStream async publish\n');
      const tenantId = (
        await sql.query<{ id: string }>(
          `INSERT INTO tenants (slug, name) VALUES ('bench-relay-${process.pid}', 'Bench relay') RETURNING id`,
        )
      ).rows[0].id;
      // What the platform's relays had not yet published when its services stopped (the
      // batches leave a backlog) would otherwise be drained inside the measured run.
      const left = await sql.query(
        'UPDATE event_outbox SET published_at = now() WHERE published_at IS NULL',
      );
      details.outboxLeftByServices = left.rowCount;
      const runs = await relayBacklog(database, nats.url, tenantId);
      details.relay = runs;
      const bare = runs.filter((r) => !r.name.includes('relay')).map((r) => r.perSecond);
      const relay = runs.filter((r) => r.name.includes('relay')).map((r) => r.perSecond);
      rows.push(
        ratioRow(
          'outbox relay vs JetStream async publish (500 in flight)',
          Math.round(mean(relay)),
          Math.round(mean(bare)),
          'events/s',
          0.8,
        ),
      );
    }
  } finally {
    await stopAll();
    await sql.end().catch(() => undefined);
    await database.close();
    await dropDatabase(adminUrl, dbName).catch(() => undefined);
    await nats.close();
    await embedded?.stop();
  }
  process.stdout.write(`\n${printTable(rows)}\n`);
  // A partial run (ONLY=...) is written beside the whole one, never over it.
  // The scale scenario alone is a run of its own kind: bench/results/<date>-scale.json.
  const kind =
    process.env.ONLY === 'console'
      ? 'console'
      : process.env.ONLY === 'retention'
        ? `retention-${RETENTION_ROWS}`
        : process.env.ONLY === 'scale'
          ? process.env.SCALE_EXPORT_ONLY === '1'
            ? 'scale-export'
            : 'scale'
          : process.env.ONLY
            ? `stack-only-${[...ONLY].join('-')}`
            : 'stack';
  const file = writeResults(kind, rows, details);
  process.stdout.write(`results: ${file}\n`);
  return rows;
}

if (require.main === module) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stopAll().then(() => process.exit(130)));
  runStackBench().catch(async (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    await stopAll();
    process.exit(1);
  });
}
