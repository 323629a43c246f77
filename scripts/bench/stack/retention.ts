/**
 * Retention at scale (`ONLY=retention npm run bench:stack`): the hot paths that touch the growing
 * tables, and the retention worker's own cost, on a database of RETENTION_ROWS rows beside the
 * same on a near-empty one, in the same run, alternating between the two.
 *
 * Two databases of the scenario's own (created, migrated, seeded by COPY, vacuumed and analysed,
 * dropped at the end), each with its own gateway and webhook-ingest: "big" holds RETENTION_ROWS
 * rows (20,000,000 by default) split 40% event_outbox (30 days, all published but the newest
 * 1,000), 40% inbound_events (the ledger over 13 months, as deliveries write it: each row's
 * payload in inbound_event_payloads, in the partition of its week, made first by the retention
 * worker's own function) and 20% network_events (13 months), across 50 tenants (tenant A, the
 * signed-in owner, holds a fifth); "empty" holds RETENTION_BASELINE_ROWS (10,000) in the same
 * shape, so its lists have pages and its sweeps have a little work. Measured on each (latency
 * figures: sequential requests from one client after WARM_UP not counted, big and empty taken
 * in turn sample by sample, which goes first alternating, so a slow moment of the shared machine
 * falls on both; RETENTION_SAMPLES (200) per side for the figures through HTTP,
 * RETENTION_FAST_SAMPLES (2,000) for the sub-millisecond claims, whose p99 200 samples cannot
 * tell from noise):
 *
 * - the relay's claim: `claimRoundSql(1000)` of libs/shared's OutboxRelay with its round settings,
 *   as the relay's system role, rolled back (1,000 rows pending; the services' relays are held
 *   off by the bench taking the relay's advisory lock), and again once nothing is pending;
 * - a delivery's dedup: a new signed network delivery through the gateway to webhook-ingest
 *   (claims its ledger key, stores the event), and a re-sent one (a body whose digest is the key
 *   of a ledger row months old: answered as a duplicate);
 * - the inbound delivery log (`GET /api/integrations/inbound-events`): the first page, and the
 *   page after 50 pages of 100 walked by cursor;
 * - the retention worker: libs/shared's retentionWorker with each real sweep of webhook-ingest
 *   and crm-api in turn (the ledger's payload weeks, the ledger's rows, network_events, the
 *   outbox's published rows; defaults: batches of 1,000 rows or one partition, 200 ms apart)
 *   for at most RETENTION_SWEEP_SECONDS (15) each, with DELIVERY_CLIENTS (8) clients sending
 *   deliveries for the whole window: rows removed per second (wall, and within the statements;
 *   for the payload weeks also partitions dropped per second, and the rows in them counted
 *   before), each batch's time, and the deliveries' p50/p99 over the window, beside the same with
 *   no sweep. The payloads a ledger row kept itself before inbound_event_payloads are not seeded
 *   (a database that started with the table has none), so their row-by-row strip is not run.
 *
 * The services' own retention workers are given periods of a century so they remove nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { Client } from 'pg';
import {
  createDb,
  dropDatabase,
  ensureDatabase,
  migrateToLatest,
  withDatabase,
  withSystemScope,
  type Db,
} from '../../../libs/shared/src/db';
import { claimRoundSql, ROUND_SETTINGS } from '../../../libs/shared/src/events/relay';
import { silentLogger } from '../../../libs/shared/src/logger';
import {
  RETENTION_POLICIES,
  retentionWorker,
  type RetentionSweep,
} from '../../../libs/shared/src/retention';
import { crmApiRetention } from '../../../services/crm-api/src/retention/retention-sweeps';
import type { Config as CrmApiConfig } from '../../../services/crm-api/src/config';
import { listPayloadPartitions } from '../../../services/webhook-ingest/src/retention/payload-partitions.repository';
import { webhookIngestRetention } from '../../../services/webhook-ingest/src/retention/retention-sweeps';
import type { Config as WebhookIngestConfig } from '../../../services/webhook-ingest/src/config';
import { freePort } from '../../dev/embedded-postgres';
import { latency, type Latency } from './latency';
import { startService, stopProcess } from './processes';
import type { Row } from './report';
import {
  networkBody,
  PENDING_OUTBOX_ROWS,
  seedRetentionTables,
  type Seeded,
} from './retention-seed';

export const RETENTION_ROWS = Number(process.env.RETENTION_ROWS ?? 20_000_000);
const BASELINE_ROWS = Number(process.env.RETENTION_BASELINE_ROWS ?? 10_000);
const SAMPLES = Number(process.env.RETENTION_SAMPLES ?? 200);
const FAST_SAMPLES = Number(process.env.RETENTION_FAST_SAMPLES ?? 2000);
const SWEEP_SECONDS = Number(process.env.RETENTION_SWEEP_SECONDS ?? 15);
const DELIVERY_CLIENTS = Number(process.env.DELIVERY_CLIENTS ?? 8);
const WARM_UP = 10;
/** The bound every ratio is held to (the requirement: within 1.5x of the empty database). */
const WITHIN = 1.5;
const RELAY_LOCK_KEY = 'crm_event_outbox_relay';
const OTHER_TENANTS = 49;
const CENTURY_DAYS = '36500';

/** One database with its gateway and webhook-ingest. */
interface Side {
  name: 'big' | 'empty';
  rows: number;
  databaseUrl: string;
  dbName: string;
  database: Db;
  sql: Client;
  /** Holds the relay's advisory lock while the claim is measured with rows pending. */
  relayLock: Client;
  gatewayUrl: string;
  cookie: string;
  account: string;
  seeded?: Seeded;
  children: ChildProcess[];
}

export interface RetentionOptions {
  adminUrl: string;
  envOf: (service: string) => Record<string, string>;
  networkSecret: string;
}

/** The signed request of a network body, as the partner signs it. */
function signedDelivery(secret: string, body: string) {
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-network-signature': `t=${t},v1=${v1}` },
    body,
  };
}

async function deliver(side: Side, secret: string, body: string) {
  const res = await fetch(`${side.gatewayUrl}/api/webhooks/network`, signedDelivery(secret, body));
  const answer = (await res.json()) as { inserted?: number; duplicate?: boolean };
  if (res.status !== 200)
    throw new Error(`delivery answered ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function getJson(side: Side, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${side.gatewayUrl}${path}`, { headers: { cookie: side.cookie } });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200)
    throw new Error(`GET ${path} answered ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * A figure on both sides: WARM_UP runs not counted, then `samples` timed runs per side taken in
 * turn sample by sample (big then empty, empty then big, ...), so drift of the shared machine,
 * even a moment's, falls on both alike.
 */
async function sideBySide(
  label: string,
  sides: Side[],
  run: (side: Side, i: number) => Promise<number | void>,
  samples = SAMPLES,
): Promise<Record<Side['name'], Latency>> {
  const ms: Record<string, number[]> = { big: [], empty: [] };
  const counters: Record<string, number> = { big: 0, empty: 0 };
  const once = async (side: Side) => {
    const started = performance.now();
    const own = await run(side, counters[side.name]++);
    return typeof own === 'number' ? own : performance.now() - started;
  };
  for (const side of sides) for (let i = 0; i < WARM_UP; i++) await once(side);
  for (let i = 0; i < samples; i++) {
    const turn = i % 2 === 0 ? sides : [...sides].reverse();
    for (const side of turn) ms[side.name].push(await once(side));
  }
  const result = { big: latency(ms.big), empty: latency(ms.empty) };
  process.stderr.write(
    `  ${label}: big p50 ${result.big.p50Ms} p99 ${result.big.p99Ms} ms; empty p50 ${result.empty.p50Ms} p99 ${result.empty.p99Ms} ms (${samples} each)\n`,
  );
  return result;
}

class Rollback extends Error {
  constructor(readonly ms: number) {
    super('rolled back');
  }
}

/** The relay's claim of one round, as the relay runs it (system role, its settings), rolled back. */
async function claimOnce(side: Side, expectRows: number): Promise<number> {
  try {
    await withSystemScope(side.database.db, async (trx) => {
      await sql`SELECT ${ROUND_SETTINGS}`.execute(trx);
      const started = performance.now();
      const { rows } = await claimRoundSql(1000).execute(trx);
      const ms = performance.now() - started;
      if (rows.length !== expectRows)
        throw new Error(`the claim on ${side.name} took ${rows.length} rows, not ${expectRows}`);
      throw new Rollback(ms);
    });
  } catch (err) {
    if (err instanceof Rollback) return err.ms;
    throw err;
  }
  throw new Error('unreachable');
}

/** The sweeps the services run, with the policies' defaults and the worker's default pacing. */
function realSweeps(): RetentionSweep[] {
  const defaults = Object.fromEntries(
    Object.values(RETENTION_POLICIES).map((p) => [p.variable, p.defaultValue]),
  );
  const pacing = {
    RETENTION_SWEEP_EVERY_MS: 3_600_000,
    RETENTION_BATCH_SIZE: 1000,
    RETENTION_BATCH_PAUSE_MS: 200,
    RETENTION_BEHIND_AFTER_MINUTES: 60,
  };
  const config = { ...defaults, ...pacing };
  const ledger = webhookIngestRetention(config as unknown as WebhookIngestConfig).sweeps;
  const outbox = crmApiRetention(config as unknown as CrmApiConfig).sweeps;
  // email_opens and email_clicks are not seeded: their sweeps are network_events' statement.
  // No ledger row carries a payload of its own (none is seeded): nothing to strip.
  const unseeded = (s: RetentionSweep) =>
    s.table.startsWith('email_') || s.table === 'inbound_events.raw_body';
  return [...ledger.filter((s) => !unseeded(s)), ...outbox];
}

export const SWEEP_PACING = { batchSize: 1000, pauseMs: 200 };

interface SweepFigure {
  table: string;
  /** What `removed` counts: rows, or whole partitions. */
  unit: 'rows' | 'partitions';
  removed: number;
  /** For a partition sweep: the rows in the partitions it was due to drop, counted before. */
  rowsInPartitions?: number;
  /** For a partition sweep: the rows it removed with them (counted before and after). */
  rowsRemoved?: number;
  partitionsPerSecond?: number;
  batches: number;
  done: boolean;
  seconds: number;
  rowsPerSecond: number;
  statementRowsPerSecond: number;
  batchMs: Latency;
  deliveriesDuring: Latency;
  /** Checkpoints the server (shared by every database on it) began during the window. */
  checkpointsDuring: number;
}

async function checkpoints(side: Side): Promise<number> {
  // Postgres 17 moved the counts from pg_stat_bgwriter to pg_stat_checkpointer (the embedded
  // server, with DATABASE_URL unset, is newer than Debian's 15).
  const { rows: version } = await side.sql.query<{ v: string }>(
    "SELECT current_setting('server_version_num') AS v",
  );
  const { rows } = await side.sql.query<{ n: string }>(
    Number(version[0].v) >= 170000
      ? 'SELECT num_timed + num_requested AS n FROM pg_stat_checkpointer'
      : 'SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter',
  );
  return Number(rows[0].n);
}

/** Deliveries from DELIVERY_CLIENTS clients until `until` resolves; each one's latency. */
async function deliveriesUntil(side: Side, secret: string, until: Promise<unknown>, tag: string) {
  let stop = false;
  void until.then(() => (stop = true));
  const ms: number[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: DELIVERY_CLIENTS }, async () => {
      while (!stop) {
        const body = networkBody(
          `${tag}-${n++}-${randomUUID()}`,
          side.account,
          new Date().toISOString(),
        );
        const started = performance.now();
        const answer = await deliver(side, secret, body);
        if (answer.inserted !== 1) throw new Error(`a delivery stored ${answer.inserted} events`);
        ms.push(performance.now() - started);
      }
    }),
  );
  return latency(ms);
}

/** The payload rows in the weeks the payload sweep is due to drop (upper bound past keepMs). */
async function rowsInDuePartitions(side: Side, keepMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - keepMs);
  const due = (await listPayloadPartitions(side.database.db)).filter(
    (p) => p.upper !== null && p.upper <= cutoff,
  );
  let total = 0;
  for (const p of due) {
    const { rows } = await side.sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${p.schema}.${p.name}`,
    );
    total += Number(rows[0].n);
  }
  return total;
}

/** One sweep run by the real worker for at most SWEEP_SECONDS, deliveries beside it. */
async function sweepWithDeliveries(side: Side, sweep: RetentionSweep, secret: string) {
  const batchMs: number[] = [];
  let removed = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const timedSweep: RetentionSweep = {
    ...sweep,
    sweepBatch: async (db, cutoff, limit) => {
      const started = performance.now();
      const count = await sweep.sweepBatch(db, cutoff, limit);
      batchMs.push(performance.now() - started);
      removed += count;
      if (count < limit) done();
      return count;
    },
  };
  const worker = retentionWorker({ db: side.database.db, logger: silentLogger() }, [timedSweep], {
    everyMs: 3_600_000,
    ...SWEEP_PACING,
  });
  const unit = sweep.unit ?? 'rows';
  // The rows a partition sweep removes with its partitions, counted before it runs.
  const rowsInPartitions =
    unit === 'partitions' ? await rowsInDuePartitions(side, sweep.keepMs) : undefined;
  const budget = new Promise<void>((resolve) => setTimeout(resolve, SWEEP_SECONDS * 1000));
  const checkpointsBefore = await checkpoints(side);
  const began = performance.now();
  const ran = Promise.race([finished.then(() => true), budget.then(() => false)]);
  // The deliveries go on for the whole window on both sides: where the worker is done early
  // (the empty database), the rest of the window is the same deliveries with nothing to sweep.
  const deliveries = deliveriesUntil(side, secret, budget, `sweep-${sweep.table}`);
  await worker.start();
  const completed = await ran;
  await worker.stop();
  const seconds = (performance.now() - began) / 1000;
  const deliveriesDuring = await deliveries;
  // What else wrote or read the disk in the window (the server is shared with other sessions).
  const checkpointsDuring = (await checkpoints(side)) - checkpointsBefore;
  const inStatements = batchMs.reduce((s, v) => s + v, 0) / 1000;
  // A partition sweep removed the rows of the due partitions that are gone.
  const rows =
    unit === 'partitions'
      ? (rowsInPartitions ?? 0) - (await rowsInDuePartitions(side, sweep.keepMs))
      : removed;
  const figure: SweepFigure = {
    table: sweep.table,
    unit,
    removed,
    ...(unit === 'partitions' && {
      rowsInPartitions,
      rowsRemoved: rows,
      partitionsPerSecond: Number((removed / seconds).toFixed(2)),
    }),
    batches: batchMs.length,
    done: completed,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round(rows / seconds),
    statementRowsPerSecond: Math.round(rows / Math.max(inStatements, 0.001)),
    batchMs: latency(batchMs),
    deliveriesDuring,
    checkpointsDuring,
  };
  const what =
    unit === 'partitions'
      ? `${removed} partitions (${rows} rows) in ${figure.seconds} s (${figure.partitionsPerSecond} partitions/s, ${figure.rowsPerSecond} rows/s, ${figure.statementRowsPerSecond} rows/s in statements`
      : `${removed} rows in ${figure.seconds} s (${figure.rowsPerSecond}/s, ${figure.statementRowsPerSecond}/s in statements`;
  process.stderr.write(
    `  sweep ${sweep.table} on ${side.name}: ${what}, batch p99 ${figure.batchMs.p99Ms} ms${completed ? ', done' : ''}); deliveries p50 ${deliveriesDuring.p50Ms} p99 ${deliveriesDuring.p99Ms} ms (${deliveriesDuring.samples}), checkpoints ${checkpointsDuring}\n`,
  );
  return figure;
}

async function signUp(gatewayUrl: string, name: string) {
  const res = await fetch(`${gatewayUrl}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `owner-${name}-${process.pid}@bench.example`,
      password: 'bench-password-123',
      name: `Owner ${name}`,
      tenantName: `Retention ${name}`,
    }),
  });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { tenant } = ((await res.json()) as { data: { tenant: { id: string } } }).data;
  return { cookie, tenantId: tenant.id };
}

async function openSide(
  name: Side['name'],
  rows: number,
  options: RetentionOptions,
): Promise<Side> {
  const dbName = `crm_bench_retention_${name}_${process.pid}`;
  const databaseUrl = withDatabase(options.adminUrl, dbName);
  await ensureDatabase(options.adminUrl, dbName);
  const database = createDb({ connectionString: databaseUrl, maxConnections: 3 });
  await migrateToLatest(database.db);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const relayLock = new Client({ connectionString: databaseUrl });
  await relayLock.connect();
  // Held from before the seeding until the claim is measured: the services' relays take it
  // each round (pg_try_advisory_xact_lock), so they leave the seeded pending rows alone.
  await relayLock.query('SELECT pg_advisory_lock(hashtext($1))', [RELAY_LOCK_KEY]);
  const ports = { gateway: await freePort(), 'webhook-ingest': await freePort() };
  const env = (service: keyof typeof ports): Record<string, string> => ({
    ...options.envOf(service),
    DATABASE_URL: databaseUrl,
    GATEWAY_PORT: String(ports.gateway),
    WEBHOOK_INGEST_PORT: String(ports['webhook-ingest']),
    WEBHOOK_INGEST_URL: `http://127.0.0.1:${ports['webhook-ingest']}`,
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.gateway}`,
    // The services' own sweeps remove nothing: the bench runs the sweeps it measures.
    RETENTION_LEDGER_PAYLOADS_DAYS: CENTURY_DAYS,
    RETENTION_LEDGER_DAYS: CENTURY_DAYS,
    RETENTION_PROVIDER_EVENTS_DAYS: CENTURY_DAYS,
    RETENTION_PUBLISHED_EVENTS_DAYS: CENTURY_DAYS,
  });
  const children: ChildProcess[] = [];
  for (const service of ['webhook-ingest', 'gateway'] as const)
    children.push(await startService(service, ports[service], env(service)));
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  const owner = await signUp(gatewayUrl, name);
  const account = `bench-account-${name}`;
  const created = await fetch(`${gatewayUrl}/api/integrations/network-accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: owner.cookie },
    body: JSON.stringify({ external_account_id: account }),
  });
  if (created.status !== 201) throw new Error(`network account answered ${created.status}`);
  // Proven as the partner's verification would (the bench's superuser connection).
  const { rows: accounts } = await client.query<{ id: string }>(
    `UPDATE network_accounts SET proven_at = now() WHERE external_account_id = $1 RETURNING id`,
    [account],
  );
  const { rows: others } = await client.query<{ id: string; account_id: string }>(
    `WITH t AS (INSERT INTO tenants (slug, name)
                SELECT 'retention-other-' || k, 'Other ' || k FROM generate_series(1, $1) k
                RETURNING id)
     INSERT INTO network_accounts (tenant_id, external_account_id, proven_at)
     SELECT id, 'acct-' || left(id::text, 8), now() FROM t RETURNING tenant_id AS id, id AS account_id`,
    [OTHER_TENANTS],
  );
  const side: Side = {
    name,
    rows,
    databaseUrl,
    dbName,
    database,
    sql: client,
    relayLock,
    gatewayUrl,
    cookie: owner.cookie,
    account,
    children,
  };
  process.stderr.write(`  ${name}: seeding ${rows} rows\n`);
  side.seeded = await seedRetentionTables(
    client,
    database.db,
    {
      a: { id: owner.tenantId, accountId: accounts[0].id, externalAccount: account },
      others: others.map((o) => ({ id: o.id, accountId: o.account_id })),
    },
    rows,
    (line) => process.stderr.write(`${line}\n`),
  );
  return side;
}

async function closeSide(side: Side, adminUrl: string) {
  for (const child of [...side.children].reverse()) await stopProcess(child);
  await side.relayLock.end().catch(() => undefined);
  await side.sql.end().catch(() => undefined);
  await side.database.close();
  await dropDatabase(adminUrl, side.dbName).catch(() => undefined);
}

/** The load average every 5 s while the scenario runs (the machine is shared). */
function loadSampler() {
  const samples: { at: string; load1: number; load5: number }[] = [];
  const take = () => {
    const [load1, load5] = loadavg();
    samples.push({
      at: new Date().toISOString(),
      load1: Number(load1.toFixed(2)),
      load5: Number(load5.toFixed(2)),
    });
  };
  take();
  const timer = setInterval(take, 5_000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      take();
      const load1 = samples.map((s) => s.load1);
      return {
        mean1: Number((load1.reduce((s, v) => s + v, 0) / load1.length).toFixed(2)),
        max1: Math.max(...load1),
        samples,
      };
    },
  };
}

export async function retentionAtScale(options: RetentionOptions) {
  const load = loadSampler();
  const sides: Side[] = [];
  try {
    const seedingStarted = performance.now();
    sides.push(await openSide('big', RETENTION_ROWS, options));
    sides.push(await openSide('empty', BASELINE_ROWS, options));
    const seedingSeconds = Math.round((performance.now() - seedingStarted) / 1000);
    const secret = options.networkSecret;
    const figures: Record<string, Record<Side['name'], Latency>> = {};

    figures[`relay claim, ${PENDING_OUTBOX_ROWS} pending`] = await sideBySide(
      'relay claim, rows pending',
      sides,
      (side) => claimOnce(side, PENDING_OUTBOX_ROWS),
      FAST_SAMPLES,
    );
    // The relays may publish again; the claim of an idle relay (its every poll) once they have.
    for (const side of sides) {
      await side.relayLock.query('SELECT pg_advisory_unlock(hashtext($1))', [RELAY_LOCK_KEY]);
      for (let i = 0; i < 600; i++) {
        const { rows } = await side.sql.query<{ n: string }>(
          'SELECT count(*) AS n FROM event_outbox WHERE published_at IS NULL',
        );
        if (rows[0].n === '0') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    figures['relay claim, nothing pending'] = await sideBySide(
      'relay claim, nothing pending',
      sides,
      (side) => claimOnce(side, 0),
      FAST_SAMPLES,
    );

    figures['new delivery (claims its ledger key)'] = await sideBySide(
      'new delivery',
      sides,
      async (side, i) => {
        const body = networkBody(
          `new-${i}-${randomUUID()}`,
          side.account,
          new Date().toISOString(),
        );
        const answer = await deliver(side, secret, body);
        if (answer.inserted !== 1) throw new Error(`a new delivery stored ${answer.inserted}`);
      },
    );
    figures['re-sent delivery (refused by its ledger key)'] = await sideBySide(
      're-sent delivery',
      sides,
      async (side, i) => {
        const resent = side.seeded?.resent ?? [];
        const answer = await deliver(side, secret, resent[i % resent.length]);
        if (answer.duplicate !== true) throw new Error('a re-sent delivery was not a duplicate');
      },
    );

    const ledger = '/api/integrations/inbound-events';
    figures['delivery log, first page'] = await sideBySide(
      'delivery log, first page',
      sides,
      async (side) => {
        const page = await getJson(side, ledger);
        if (!Array.isArray(page.items) || page.items.length === 0)
          throw new Error('an empty first page');
      },
    );
    // The page after 50 pages of 100 (after half the tenant's rows when it has fewer).
    const cursors: Record<string, string> = {};
    const walked: Record<string, number> = {};
    for (const side of sides) {
      const own = await side.sql.query<{ n: string }>(
        `SELECT count(*) AS n FROM inbound_events WHERE tenant_id = (
           SELECT tenant_id FROM network_accounts WHERE external_account_id = $1)`,
        [side.account],
      );
      const pages = Math.max(1, Math.min(50, Math.floor(Number(own.rows[0].n) / 100 / 2)));
      let cursor = '';
      for (let p = 0; p < pages; p++) {
        const page = await getJson(
          side,
          `${ledger}?pageSize=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        cursor = String(page.nextCursor);
      }
      cursors[side.name] = cursor;
      walked[side.name] = pages * 100;
    }
    figures['delivery log, a cursor page (pageSize 100)'] = await sideBySide(
      'delivery log, cursor page',
      sides,
      async (side) => {
        const page = await getJson(
          side,
          `${ledger}?pageSize=100&cursor=${encodeURIComponent(cursors[side.name])}`,
        );
        if (!Array.isArray(page.items) || page.items.length === 0)
          throw new Error('an empty cursor page');
      },
    );

    // Deliveries with no sweep, then each sweep by the worker with deliveries beside it.
    const quiet: Record<string, Latency> = {};
    for (const side of sides) {
      const wait = new Promise((resolve) => setTimeout(resolve, SWEEP_SECONDS * 1000));
      quiet[side.name] = await deliveriesUntil(side, secret, wait, 'quiet');
      process.stderr.write(
        `  concurrent deliveries, no sweep, ${side.name}: p50 ${quiet[side.name].p50Ms} p99 ${quiet[side.name].p99Ms} ms (${quiet[side.name].samples})\n`,
      );
    }
    const sweeps: Record<string, Record<Side['name'], SweepFigure>> = {};
    for (const sweep of realSweeps()) {
      const bySide = {} as Record<Side['name'], SweepFigure>;
      for (const side of sides) bySide[side.name] = await sweepWithDeliveries(side, sweep, secret);
      sweeps[sweep.table] = bySide;
    }
    return {
      rows: { big: RETENTION_ROWS, empty: BASELINE_ROWS },
      seeded: Object.fromEntries(sides.map((s) => [s.name, { ...s.seeded, resent: undefined }])),
      seedingSeconds,
      samplesPerFigure: SAMPLES,
      samplesPerClaimFigure: FAST_SAMPLES,
      sweepSeconds: SWEEP_SECONDS,
      deliveryClients: DELIVERY_CLIENTS,
      cursorAfterRows: walked,
      figures,
      deliveriesWithoutSweep: quiet,
      sweeps,
      load: load.stop(),
    };
  } finally {
    for (const side of sides) await closeSide(side, options.adminUrl);
  }
}

const ratio = (figure: number, baseline: number) =>
  Number((figure / Math.max(baseline, 0.01)).toFixed(2));

/** One row per figure: the big database's beside the empty one's; each held to 1.5x. */
export function retentionRows(result: Awaited<ReturnType<typeof retentionAtScale>>): Row[] {
  const rows: Row[] = [];
  const size = `${result.rows.big} vs ${result.rows.empty} rows`;
  for (const [key, { big, empty }] of Object.entries(result.figures))
    rows.push({
      scenario: `${key}, p99 at ${size}`,
      figure: big.p99Ms,
      baseline: empty.p99Ms,
      unit: 'ms',
      ratio: ratio(big.p99Ms, empty.p99Ms),
      target: `<= ${WITHIN}x`,
      holds: big.p99Ms <= WITHIN * empty.p99Ms,
    });
  for (const [table, { big, empty }] of Object.entries(result.sweeps)) {
    if (big.unit === 'partitions') {
      // Partitions per second (wall: each is a detach that waits for the transactions in
      // flight, then a drop), the same weeks on both sides, whatever their rows.
      rows.push({
        scenario: `sweep ${table}, partitions dropped/s at ${size}`,
        figure: big.partitionsPerSecond ?? 0,
        baseline: empty.partitionsPerSecond ?? 0,
        unit: 'partitions/s',
        ratio: ratio(big.partitionsPerSecond ?? 0, empty.partitionsPerSecond ?? 0),
        target: `>= ${(1 / WITHIN).toFixed(2)}x`,
        holds: (big.partitionsPerSecond ?? 0) * WITHIN >= (empty.partitionsPerSecond ?? 0),
      });
    }
    // Rows per second within the statements: the pauses are the same on both sides.
    rows.push({
      scenario: `sweep ${table}, rows/s in its statements at ${size}`,
      figure: big.statementRowsPerSecond,
      baseline: empty.statementRowsPerSecond,
      unit: 'rows/s',
      ratio: ratio(big.statementRowsPerSecond, empty.statementRowsPerSecond),
      target: `>= ${(1 / WITHIN).toFixed(2)}x`,
      holds: big.statementRowsPerSecond * WITHIN >= empty.statementRowsPerSecond,
    });
    rows.push({
      scenario: `deliveries during sweep ${table}, p99 at ${size}`,
      figure: big.deliveriesDuring.p99Ms,
      baseline: empty.deliveriesDuring.p99Ms,
      unit: 'ms',
      ratio: ratio(big.deliveriesDuring.p99Ms, empty.deliveriesDuring.p99Ms),
      target: `<= ${WITHIN}x`,
      holds: big.deliveriesDuring.p99Ms <= WITHIN * empty.deliveriesDuring.p99Ms,
    });
  }
  return rows;
}
