/**
 * The seeding of the retention scenario (retention.ts): the outbox, the inbound ledger with its
 * payloads and the network events of a deployment that has run for a year, by COPY (text
 * format), oldest row first as a live table grows. A table's indexes and keys are set aside
 * during its COPY and built again after it (one sort each instead of a random insert per row),
 * so seeding tens of millions of rows fits in the run; the rebuilt definitions are the
 * migrations' own, read from the catalog.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { PAYLOAD_WEEKS_AHEAD, payloadWeek, type Database } from '../../../libs/shared/src/db';
import { ensurePayloadPartitions } from '../../../services/webhook-ingest/src/retention/payload-partitions.repository';

const DAY_MS = 24 * 3600 * 1000;
/** The ledger and the provider events span 13 months; the outbox, 30 days (it keeps 7). */
export const LEDGER_SPAN_MS = 395 * DAY_MS;
export const OUTBOX_SPAN_MS = 30 * DAY_MS;
/** Outbox rows left unpublished (the newest): what the relay's claim finds. */
export const PENDING_OUTBOX_ROWS = 1_000;
/** Ledger rows whose delivery id is the digest of a real body, re-sent to measure the dedup. */
export const RESENT_SAMPLES = 200;
const CHUNK = 5_000;

/**
 * How the rows are split: the share of each table (each ledger row has its payload besides, in
 * inbound_event_payloads).
 */
export const SPLIT = { event_outbox: 0.4, inbound_events: 0.4, network_events: 0.2 } as const;

export interface SeedTenants {
  /** Tenant A: the signed-in owner whose ledger is listed; every fifth row is A's. */
  a: { id: string; accountId: string; externalAccount: string };
  /** Other tenants' ids and network accounts, sharing the indexes. */
  others: { id: string; accountId: string }[];
}

export interface Seeded {
  rows: Record<keyof typeof SPLIT, number>;
  /** Bodies of old ledger rows (their delivery id is the body's digest): re-sent, a duplicate. */
  resent: string[];
  ms: Record<string, number>;
  megabytes: Record<string, number>;
}

/** A signed network body as the provider sends it (one event). */
export function networkBody(eventId: string, account: string, at: string): string {
  return `{"id":"${eventId}","type":"INVITATION_SENT","account_id":"${account}","occurred_at":"${at}","actor":{"name":"Bench Person","profile_url":"https://network.example/in/bench"}}`;
}

const HEADERS = '{"content-type":"application/json","user-agent":"network-webhooks/1.0"}';

function tenantOf(tenants: SeedTenants, i: number) {
  return i % 5 === 0 ? tenants.a : tenants.others[i % tenants.others.length];
}

function at(spanMs: number, now: number, i: number, rows: number): string {
  return new Date(now - spanMs + Math.floor((i / rows) * spanMs)).toISOString();
}

async function* chunks(rows: number, line: (i: number) => string) {
  for (let start = 0; start < rows; start += CHUNK) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows, start + CHUNK); i++) lines.push(line(i));
    yield `${lines.join('\n')}\n`;
  }
}

async function copy(sql: Client, statement: string, rows: number, line: (i: number) => string) {
  await pipeline(Readable.from(chunks(rows, line)), sql.query(copyFrom(statement)));
}

/**
 * Runs `fill` with the table's indexes, primary and unique keys and foreign keys dropped, then
 * puts each back from its catalog definition (the migrations' own), keys first.
 */
async function withoutIndexes(sql: Client, table: string, fill: () => Promise<void>) {
  const { rows: constraints } = await sql.query<{ name: string; def: string; type: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def, contype AS type
       FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'f')
      ORDER BY contype DESC`,
    [table],
  );
  const { rows: indexes } = await sql.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = 'public' AND tablename = $1
        AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass)`,
    [table],
  );
  for (const index of indexes) await sql.query(`DROP INDEX ${index.name}`);
  for (const c of constraints) await sql.query(`ALTER TABLE ${table} DROP CONSTRAINT ${c.name}`);
  await fill();
  await sql.query(`SET maintenance_work_mem = '256MB'`);
  for (const c of [...constraints].reverse())
    await sql.query(`ALTER TABLE ${table} ADD CONSTRAINT ${c.name} ${c.def}`);
  for (const index of indexes) await sql.query(index.def);
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** Whole weeks from the one of `from` to the one of `to`. */
const weeksBetween = (from: Date, to: Date) =>
  Math.round((payloadWeek(to).from.getTime() - payloadWeek(from).from.getTime()) / WEEK_MS);

/**
 * COPYs `total` rows split by SPLIT (the ledger's payloads beside its rows), then VACUUM
 * ANALYZE of each table. `db` makes the payload table's weeks, by the retention worker's own
 * function with its clock moved back.
 */
export async function seedRetentionTables(
  sql: Client,
  db: Kysely<Database>,
  tenants: SeedTenants,
  total: number,
  log: (line: string) => void,
): Promise<Seeded> {
  const now = Date.now();
  const rows = {
    event_outbox: Math.max(PENDING_OUTBOX_ROWS * 2, Math.round(total * SPLIT.event_outbox)),
    inbound_events: Math.max(RESENT_SAMPLES * 10, Math.round(total * SPLIT.inbound_events)),
    network_events: Math.round(total * SPLIT.network_events),
  };
  const ms: Record<string, number> = {};
  const timed = async (name: string, fn: () => Promise<void>) => {
    const started = performance.now();
    await fn();
    ms[name] = Math.round(performance.now() - started);
    log(`    ${name}: ${(ms[name] / 1000).toFixed(1)} s`);
  };

  // The outbox: published 50 ms after it was written, but for the newest PENDING_OUTBOX_ROWS.
  const outboxRows = rows.event_outbox;
  log(`  COPY ${outboxRows} event_outbox rows (30 days, all but ${PENDING_OUTBOX_ROWS} published)`);
  await timed('event_outbox', () =>
    withoutIndexes(sql, 'event_outbox', () =>
      copy(
        sql,
        `COPY event_outbox (id, tenant_id, type, envelope, created_at, published_at, attempts, event_count)
         FROM STDIN`,
        outboxRows,
        (i) => {
          const id = randomUUID();
          const tenant = tenantOf(tenants, i);
          const created = at(OUTBOX_SPAN_MS, now, i, outboxRows);
          const pending = i >= outboxRows - PENDING_OUTBOX_ROWS;
          const envelope = `{"id":"${id}","type":"network.activity.recorded","tenant_id":"${tenant.id}","occurred_at":"${created}","record":{"module":"network_events","id":"${id}"},"data":{"kind":"network_connection_sent"},"trace":{}}`;
          const published = pending ? '\\N' : new Date(Date.parse(created) + 50).toISOString();
          return `${id}\t${tenant.id}\tnetwork.activity.recorded\t${envelope}\t${created}\t${published}\t${pending ? 0 : 1}\t1`;
        },
      ),
    ),
  );

  // The ledger: rows as deliveries write them, their payloads in inbound_event_payloads, by the
  // month of each; RESENT_SAMPLES rows spread over the year carry a real body's digest. A row's
  // id, time and body follow from its number, so the payloads' COPY makes the same again.
  const ledgerRows = rows.inbound_events;
  const every = Math.floor(ledgerRows / RESENT_SAMPLES);
  const resent: string[] = [];
  const idBase = randomUUID().slice(0, 24);
  const ledgerRow = (i: number) => {
    const tenant = tenantOf(tenants, i);
    const received = at(LEDGER_SPAN_MS, now, i, ledgerRows);
    const sample = i % every === 0 && i / every < RESENT_SAMPLES;
    const account = sample ? tenants.a.externalAccount : `acct-${tenant.id.slice(0, 8)}`;
    return {
      id: `${idBase}${i.toString(16).padStart(12, '0')}`,
      tenantId: sample ? tenants.a.id : tenant.id,
      received,
      sample,
      body: networkBody(`seed-${i}`, account, received),
    };
  };
  const first = new Date(now - LEDGER_SPAN_MS);
  const weeks = await ensurePayloadPartitions(
    db,
    first,
    weeksBetween(first, new Date(now)) + PAYLOAD_WEEKS_AHEAD,
  );
  log(`  ${weeks.length} payload partitions made (${weeks[0]} on)`);
  let hex = '';
  log(`  COPY ${ledgerRows} inbound_events rows (13 months, no payload in the row)`);
  await timed('inbound_events', () =>
    withoutIndexes(sql, 'inbound_events', () =>
      copy(
        sql,
        `COPY inbound_events (id, tenant_id, provider, delivery_id, event_type, content_type, raw_body,
           verification, outcome, attempts, received_at, processed_at, headers) FROM STDIN`,
        ledgerRows,
        (i) => {
          const row = ledgerRow(i);
          let deliveryId: string;
          if (row.sample) {
            resent.push(row.body);
            deliveryId = `sha256:${createHash('sha256').update(row.body).digest('hex')}`;
          } else {
            if (hex.length < 64) hex = randomBytes(32 * CHUNK).toString('hex');
            deliveryId = `sha256:${hex.slice(0, 64)}`;
            hex = hex.slice(64);
          }
          return `${row.id}\t${row.tenantId}\tnetwork\t${deliveryId}\tINVITATION_SENT\tapplication/json\t\\N\tverified\tprocessed\t1\t${row.received}\t${row.received}\t\\N`;
        },
      ),
    ),
  );
  log(`  COPY ${ledgerRows} inbound_event_payloads rows (into their weeks)`);
  await timed('inbound_event_payloads', () =>
    withoutIndexes(sql, 'inbound_event_payloads', () =>
      copy(
        sql,
        'COPY inbound_event_payloads (ledger_id, received_at, raw_body, headers) FROM STDIN',
        ledgerRows,
        (i) => {
          const row = ledgerRow(i);
          return `${row.id}\t${row.received}\t${row.body}\t${HEADERS}`;
        },
      ),
    ),
  );

  const eventRows = rows.network_events;
  log(`  COPY ${eventRows} network_events rows (13 months)`);
  await timed('network_events', () =>
    withoutIndexes(sql, 'network_events', () =>
      copy(
        sql,
        `COPY network_events (id, tenant_id, account_id, external_event_id, kind, event_type, actor,
           occurred_at, payload, created_at) FROM STDIN`,
        eventRows,
        (i) => {
          const tenant = tenantOf(tenants, i);
          const created = at(LEDGER_SPAN_MS, now, i, eventRows);
          return `${randomUUID()}\t${tenant.id}\t${tenant.accountId}\tseed-${i}\tnetwork_connection_sent\tINVITATION_SENT\t{"name":"Bench Person"}\t${created}\t{"id":"seed-${i}","type":"INVITATION_SENT","actor":{"name":"Bench Person"}}\t${created}`;
        },
      ),
    ),
  );

  // VACUUM as autovacuum would have by now: the visibility map set, so neither the figures nor
  // the sweeps run beside an autovacuum of the freshly copied tables.
  for (const table of [...Object.keys(rows), 'inbound_event_payloads'])
    await timed(`vacuum analyze ${table}`, async () => {
      await sql.query(`VACUUM ANALYZE ${table}`);
    });
  // A partitioned table's size is its partitions'.
  const { rows: sizes } = await sql.query<{ name: string; mb: string }>(
    `SELECT relname AS name, round(CASE WHEN relkind = 'p'
              THEN (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(oid))
              ELSE pg_total_relation_size(oid) END / 1048576.0) AS mb
       FROM pg_class
      WHERE relname IN ('event_outbox', 'inbound_events', 'network_events', 'inbound_event_payloads')
        AND relnamespace = 'public'::regnamespace`,
  );
  const megabytes = Object.fromEntries(sizes.map((s) => [s.name, Number(s.mb)]));
  return { rows, resent, ms, megabytes };
}
