/**
 * `npm run bench`: measures the platform's hot shared paths and writes the numbers to
 * bench/results/latest.json (summarised in docs/benchmarks.md).
 *
 * Uses DATABASE_URL's server (or a throwaway embedded Postgres) with a database of its own,
 * and NATS_URL (default nats://127.0.0.1:4222) when a server answers.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { sql } from 'kysely';
import {
  createDb,
  dropDatabase,
  ensureDatabase,
  migrateToLatest,
  withDatabase,
  withSystemScope,
  withTenant,
} from '../../libs/shared/src/db';
import {
  InProcessBus,
  NatsBus,
  OutboxRelay,
  writeEvent,
  type EventBus,
} from '../../libs/shared/src/events';
import { signIdentity, verifyIdentity } from '../../libs/shared/src/identity';
import { silentLogger } from '../../libs/shared/src/logger';
import { freePort, startEmbeddedPostgres } from '../dev/embedded-postgres';
import { gatewayRoundTrip } from './gateway-round-trip';
import { mcpIngest } from './mcp-ingest';
import { migrateIngest } from './migrate-ingest';
import { relayBacklog } from './relay-backlog';
import { automationDelivery } from './automation-delivery';

interface Result {
  name: string;
  operations: number;
  seconds: number;
  perSecond: number;
  p50Ms?: number;
  p99Ms?: number;
}

function percentile(sorted: number[], p: number): number {
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(3),
  );
}

async function timed(
  name: string,
  operations: number,
  op: (i: number) => Promise<unknown> | unknown,
  warmUp = 200,
): Promise<Result> {
  const latencies: number[] = [];
  for (let i = 0; i < Math.min(warmUp, operations); i++) await op(i);
  const start = performance.now();
  for (let i = 0; i < operations; i++) {
    const t = performance.now();
    await op(i);
    latencies.push(performance.now() - t);
  }
  return resultOf(name, (performance.now() - start) / 1000, latencies);
}

/** A measured operation's result: its rate over `seconds` and its latencies' p50 and p99. */
function resultOf(name: string, seconds: number, latencies: number[]): Result {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    name,
    operations: latencies.length,
    seconds: Number(seconds.toFixed(3)),
    perSecond: Math.round(latencies.length / seconds),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}

/**
 * Two or more operations measured in turns (one call of each, round after round), so a noisy
 * machine slows them alike: a result per operation, as `timed` gives it.
 */
async function timedInTurns(
  ops: Array<[name: string, op: () => Promise<unknown>]>,
  rounds: number,
  warmUp = 50,
): Promise<Result[]> {
  for (let i = 0; i < warmUp; i++) for (const [, op] of ops) await op();
  const latencies = ops.map(() => [] as number[]);
  const spent = ops.map(() => 0);
  for (let i = 0; i < rounds; i++) {
    for (const [index, [, op]] of ops.entries()) {
      const t = performance.now();
      await op();
      const ms = performance.now() - t;
      latencies[index].push(ms);
      spent[index] += ms;
    }
  }
  return ops.map(([name], index) => resultOf(name, spent[index] / 1000, latencies[index]));
}

async function outboxThroughput(
  name: string,
  database: ReturnType<typeof createDb>,
  bus: EventBus,
  tenantId: string,
  events: number,
): Promise<Result> {
  const received = new Set<string>();
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const subscription = await bus.subscribe({
    durable: `bench_${randomUUID().slice(0, 8)}`,
    handler: async (e) => {
      if (e.tenant_id !== tenantId) return;
      received.add(e.id);
      if (received.size === events) done();
    },
  });
  const relay = new OutboxRelay({
    db: database.db,
    pool: database.pool,
    bus,
    logger: silentLogger(),
    pollIntervalMs: 200,
  });
  await relay.start();
  const start = performance.now();
  for (let batch = 0; batch < events / 100; batch++) {
    await withTenant(database.db, tenantId, async (trx) => {
      for (let n = 0; n < 100; n++) {
        await writeEvent(trx, {
          type: 'bench.event',
          tenant_id: tenantId,
          record: { module: 'bench', id: String(n) },
          data: { batch, n },
        });
      }
    });
  }
  await all;
  const seconds = (performance.now() - start) / 1000;
  await relay.stop();
  await subscription.stop();
  return {
    name,
    operations: events,
    seconds: Number(seconds.toFixed(3)),
    perSecond: Math.round(events / seconds),
  };
}

async function main(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  const embedded = adminUrl
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: `.data/bench-postgres-${process.pid}`,
        port: await freePort(),
        persistent: false,
      });
  adminUrl = adminUrl ?? embedded?.adminUrl ?? '';
  const name = `crm_bench_${process.pid}`;
  await ensureDatabase(adminUrl, name);
  const database = createDb({ connectionString: withDatabase(adminUrl, name), maxConnections: 5 });
  const results: Result[] = [];
  try {
    await migrateToLatest(database.db);
    const tenant = await withSystemScope(database.db, (trx) =>
      trx
        .insertInto('tenants')
        .values({ slug: `bench-${process.pid}`, name: 'Bench' })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    results.push(
      await timed('plain query (select 1 row by id)', 3000, () =>
        sql`select id from tenants where id = ${tenant.id}`.execute(database.db),
      ),
    );
    results.push(
      await timed('withTenant transaction + same query (RLS)', 3000, () =>
        withTenant(database.db, tenant.id, (trx) =>
          trx.selectFrom('tenants').select('id').execute(),
        ),
      ),
    );
    const secret = 'bench-secret-0123456789abcdef0123456789';
    const token = signIdentity(
      { userId: randomUUID(), tenantId: tenant.id, role: 'member' },
      secret,
    );
    results.push(
      await timed('identity header sign', 20000, () =>
        signIdentity({ userId: tenant.id, tenantId: tenant.id, role: 'member' }, secret),
      ),
    );
    results.push(await timed('identity header verify', 20000, () => verifyIdentity(token, secret)));

    const roundTrip = await gatewayRoundTrip(database, tenant.id);
    results.push(
      await timed(
        'gateway Session request -> crm-api (HTTP, session + RLS + rate limit)',
        2000,
        roundTrip.request,
      ),
    );
    let run = 0;
    results.push(
      await timed(
        'import 10,000 leads in one request through the gateway',
        5,
        () => roundTrip.importLeads(10_000, run++),
        1,
      ),
    );
    results.push(
      await timed(
        'import 1,000 leads in one request through the gateway (REST)',
        20,
        () => roundTrip.importLeads(1_000, run++),
        2,
      ),
    );
    const mcp = await mcpIngest(database, tenant.id);
    let mcpRun = 0;
    results.push(
      await timed(
        'MCP ingest_leads, 1,000 leads per call through the gateway',
        20,
        () => mcp.ingestLeads(1_000, mcpRun++),
        2,
      ),
    );
    // The imports above wrote over 100,000 leads a moment ago, before autovacuum's analyze: a
    // list planned without statistics read 50 ms where it reads 4 ms with them (measured here).
    await sql`ANALYZE crm_leads`.execute(database.db);
    results.push(
      ...(await timedInTurns(
        [
          ['MCP search_leads (20 rows) through the gateway, with a key', mcp.searchWithKey],
          [
            'MCP search_leads (20 rows) through the gateway, with an OAuth access token',
            mcp.searchWithToken,
          ],
        ],
        500,
      )),
    );
    await mcp.close();
    await roundTrip.close();
    const migration = await migrateIngest(database, tenant.id);
    let migrationRun = 0;
    results.push(
      await timed(
        'migrate ingest of 5,000 leads in one signed request through the gateway',
        5,
        () => migration.ingestLeads(5_000, migrationRun++),
        1,
      ),
    );
    await migration.close();
    results.push(...(await automationDelivery(database, tenant.id)));

    const inProcess = new InProcessBus({ logger: silentLogger() });
    results.push(
      await outboxThroughput(
        'outbox write -> relay -> in-process bus -> consumer',
        database,
        inProcess,
        tenant.id,
        5000,
      ),
    );
    await inProcess.close();

    const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
    const nats = await NatsBus.connect({
      url: natsUrl,
      logger: silentLogger(),
      streamName: `BENCH_${process.pid}`,
      subjectPrefix: `bench_${process.pid}.events`,
    }).catch(() => undefined);
    if (nats) {
      results.push(
        await outboxThroughput(
          'outbox write -> relay -> NATS JetStream -> consumer',
          database,
          nats,
          tenant.id,
          5000,
        ),
      );
      await nats.deleteStream();
      await nats.close();
      results.push(...(await relayBacklog(database, natsUrl, tenant.id)));
    } else {
      process.stdout.write(`NATS not reachable at ${natsUrl}: JetStream bench skipped\n`);
    }
  } finally {
    await database.close();
    await dropDatabase(adminUrl, name);
    await embedded?.stop();
  }
  const report = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    results,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.json', `${JSON.stringify(report, null, 2)}\n`);
  for (const r of results) {
    const lat = r.p50Ms !== undefined ? `  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms` : '';
    process.stdout.write(`${r.name.padEnd(55)} ${String(r.perSecond).padStart(8)}/s${lat}\n`);
  }
  process.stdout.write('written to bench/results/latest.json\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
