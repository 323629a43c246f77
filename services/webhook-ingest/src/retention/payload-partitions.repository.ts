import {
  PAYLOAD_WEEKS_AHEAD,
  PAYLOAD_PARTITION_SCHEMA,
  PAYLOAD_TABLE,
  payloadWeek,
  payloadWeekNamed,
  payloadWeeksAt,
  SYSTEM_ROLE,
  withSystemScope,
  type Database,
  type PayloadWeek,
} from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

/*
 * The weekly partitions of inbound_event_payloads (migration 0031), made ahead and dropped by
 * webhook-ingest's retention worker as the system role, which owns the table and its partitions
 * and may create tables in their schema alone. Replicas take turns through an advisory lock, so
 * two never attach or detach at once (the loser of a race would only log an error).
 *
 * Made: as a plain table, then ATTACH PARTITION, which locks the parent SHARE UPDATE EXCLUSIVE
 * (the deliveries' reads and writes go on) and with a short lock_timeout, so that it never
 * waits long behind another holder (a vacuum, an index build); the next round tries again.
 * Dropped: DETACH PARTITION ... CONCURRENTLY (outside a transaction, so on a connection of its
 * own) waits for the transactions that may still use the partition without blocking new ones,
 * then DROP TABLE; a detach cut short (its wait timed out, the process died) leaves the
 * partition "detach pending", which the next drop completes with DETACH ... FINALIZE.
 */

const parent = sql.id(PAYLOAD_TABLE);
const LOCK = 'inbound_event_payloads partitions';
/** What an attach waits for its locks at most. */
const ATTACH_LOCK_TIMEOUT = '2s';
/** What a detach waits at most for the transactions still using the partition, and a drop. */
export const DETACH_LOCK_TIMEOUT_MS = 10_000;

/** A partition of the payload table, or a table of its schema not attached (yet, or any more). */
export interface PayloadPartition {
  schema: string;
  name: string;
  attached: boolean;
  /** Left by a DETACH ... CONCURRENTLY cut short. */
  detachPending: boolean;
  /** Its exclusive upper bound (a detached table of the schema: the week its name says). */
  upper: Date | null;
}

const ref = (p: Pick<PayloadPartition, 'schema' | 'name'>) => sql.id(p.schema, p.name);
const weekRef = (week: PayloadWeek) => sql.id(PAYLOAD_PARTITION_SCHEMA, week.name);

/**
 * The payload table's partitions and the other tables of their schema, from the catalog. An
 * attached partition's upper bound is read from its bound (the text Postgres renders it in,
 * cast back in the same session), so a partition attached by hand is counted too.
 */
export async function listPayloadPartitions(db: Kysely<Database>): Promise<PayloadPartition[]> {
  const { rows } = await sql<{
    schema: string;
    name: string;
    attached: boolean;
    detach_pending: boolean;
    upper: Date | null;
  }>`
    SELECT n.nspname AS schema, c.relname AS name, i.inhrelid IS NOT NULL AS attached,
           coalesce(i.inhdetachpending, false) AS detach_pending,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid),
                         'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS upper
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = ${PAYLOAD_TABLE}::regclass
     WHERE c.relkind = 'r' AND (i.inhrelid IS NOT NULL OR n.nspname = ${PAYLOAD_PARTITION_SCHEMA})
     ORDER BY c.relname`.execute(db);
  return rows.map((row) => ({
    schema: row.schema,
    name: row.name,
    attached: row.attached,
    detachPending: row.detach_pending,
    upper: row.upper ?? (row.attached ? null : (payloadWeekNamed(row.name)?.to ?? null)),
  }));
}

/**
 * Makes sure the partitions of `now`'s week and the `weeksAhead` after it are attached:
 * creates and attaches each missing one in a short transaction of its own. Returns the ones it
 * attached. Normally one catalog read: they were made rounds ago.
 */
export async function ensurePayloadPartitions(
  db: Kysely<Database>,
  now: Date,
  weeksAhead = PAYLOAD_WEEKS_AHEAD,
): Promise<string[]> {
  const attached = new Set(
    (await listPayloadPartitions(db)).filter((p) => p.attached).map((p) => p.name),
  );
  const made: string[] = [];
  for (const week of payloadWeeksAt(now, weeksAhead)) {
    if (attached.has(week.name)) continue;
    const attachedNow = await withSystemScope(db, async (trx) => {
      await sql.raw(`SET LOCAL lock_timeout = '${ATTACH_LOCK_TIMEOUT}'`).execute(trx);
      await sql`SELECT pg_advisory_xact_lock(hashtext(${LOCK}))`.execute(trx);
      // Another replica may have made it while this one waited for the lock.
      const { rows } = await sql<{ done: boolean }>`SELECT EXISTS (
          SELECT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = ${PAYLOAD_TABLE}::regclass AND c.relname = ${week.name}
        ) AS done`.execute(trx);
      if (rows[0].done) return false;
      await sql`CREATE TABLE IF NOT EXISTS ${weekRef(week)}
        (LIKE ${parent} INCLUDING ALL)`.execute(trx);
      await sql`ALTER TABLE ${parent} ATTACH PARTITION ${weekRef(week)}
        FOR VALUES FROM (${sql.lit(week.from.toISOString())})
        TO (${sql.lit(week.to.toISOString())})`.execute(trx);
      return true;
    });
    if (attachedNow) made.push(week.name);
  }
  return made;
}

/**
 * Drops the oldest partition whose upper bound is at or before `cutoff` (every payload in it is
 * past the policy): detached concurrently, then dropped, on a pooled connection of its own set
 * to the system role (DETACH ... CONCURRENTLY cannot run in a transaction). First completes a
 * detach an earlier run left pending (only one may be pending at a time). Returns 1 when it
 * dropped one, 0 when none is due or another replica holds the partitions' lock.
 */
export async function dropOldestPayloadPartitionBefore(
  db: Kysely<Database>,
  cutoff: Date,
  options: { lockTimeoutMs?: number } = {},
): Promise<number> {
  const lockTimeout = Math.round(options.lockTimeoutMs ?? DETACH_LOCK_TIMEOUT_MS);
  return db.connection().execute(async (conn) => {
    await sql.raw(`SET ROLE ${SYSTEM_ROLE}; SET lock_timeout = ${lockTimeout}`).execute(conn);
    try {
      const { rows } = await sql<{ locked: boolean }>`
        SELECT pg_try_advisory_lock(hashtext(${LOCK})) AS locked`.execute(conn);
      if (!rows[0].locked) return 0;
      try {
        const partitions = await listPayloadPartitions(conn);
        const pending = partitions.find((p) => p.detachPending);
        if (pending) {
          await sql`ALTER TABLE ${parent} DETACH PARTITION ${ref(pending)} FINALIZE`.execute(conn);
        }
        const [due] = partitions
          .filter((p) => p.upper !== null && p.upper <= cutoff)
          .sort((a, b) => a.upper!.getTime() - b.upper!.getTime());
        if (!due) return 0;
        if (due.attached && !due.detachPending) {
          await sql`ALTER TABLE ${parent} DETACH PARTITION ${ref(due)} CONCURRENTLY`.execute(conn);
        }
        await sql`DROP TABLE ${ref(due)}`.execute(conn);
        return 1;
      } finally {
        await sql`SELECT pg_advisory_unlock(hashtext(${LOCK}))`.execute(conn);
      }
    } finally {
      // The connection goes back to the pool as it came.
      await sql.raw('RESET lock_timeout; RESET ROLE').execute(conn);
    }
  });
}

/** The upper bound of the oldest partition (attached or left detached) before `cutoff`. */
export async function oldestPayloadPartitionBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  const uppers = (await listPayloadPartitions(db))
    .map((p) => p.upper)
    .filter((upper): upper is Date => upper !== null && upper < cutoff);
  return uppers.length > 0 ? new Date(Math.min(...uppers.map((u) => u.getTime()))) : null;
}

/**
 * What health says when the partition of `now`'s week or of the next is not attached: a
 * delivery received in a week without its partition fails (docs/retention.md), so the next
 * week's must exist well before it begins.
 */
export async function missingPayloadPartition(
  db: Kysely<Database>,
  now: Date,
): Promise<string | null> {
  const attached = new Set(
    (await listPayloadPartitions(db)).filter((p) => p.attached).map((p) => p.name),
  );
  for (const [which, week] of [
    ['this week', payloadWeek(now)],
    ['next week', payloadWeek(now, 1)],
  ] as const) {
    if (!attached.has(week.name)) {
      return `${PAYLOAD_TABLE} has no partition for ${which} (${week.name}, from ${week.from.toISOString()}): deliveries received then fail until the retention worker makes it`;
    }
  }
  return null;
}
