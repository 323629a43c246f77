import { sql, type Kysely } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import { OUTBOX_CHANNEL } from '../db/migrations';
import type { Database } from '../db/schema';
import { withSystemScope, type Trx } from '../db/tenant-scope';
import type { EventBus } from './bus';
import { eventsOfRow } from './outbox';
import { startPublishSpans } from './trace-context';

export interface OutboxRelayOptions {
  db: Kysely<Database>;
  /** A connection is taken from it to LISTEN for new outbox rows. */
  pool: Pool;
  bus: EventBus;
  logger: Logger;
  /** Safety net when a notification is missed or the bus was down (default 1000 ms). */
  pollIntervalMs?: number;
  /** Longest wait between polls after failed rounds (default 30 s); a bus reconnect ends it. */
  maxBackoffMs?: number;
  /** Rows published per round, all in flight at once (default 1000). */
  batchSize?: number;
}

interface PendingRow {
  seq: string;
  id: string;
  envelope: unknown;
  event_count: number;
}

// Only one relay publishes at a time, so events leave in commit order even with several
// relay instances running; the others wait for the next round. SKIP LOCKED guards the rows
// themselves should two relays ever overlap.
const RELAY_LOCK_KEY = 'crm_event_outbox_relay';

/**
 * Set with each round's lock, for the round's transaction only. The claim must walk the pending
 * index in seq order: the index entries of rows published since the last vacuum are then marked
 * dead on the first visit and skipped afterwards. A bitmap scan, which Postgres picks for a young
 * or busy outbox, visits every one of their heap rows again in every round: on an outbox left by
 * 27,000 single deliveries, 2,300 pages and 5.5 ms per claim; over a single-delivery bench run,
 * 46% of Postgres's statement time (docs/benchmarks.md).
 */
export const ROUND_SETTINGS = sql`set_config('enable_bitmapscan', 'off', true)`;

/**
 * The claim of one round (see takeRound): up to batchSize pending rows locked in seq order, and
 * the envelopes of those that fit in batchSize events (always at least one row).
 */
export function claimRoundSql(batchSize: number) {
  return sql<PendingRow & { locked: string }>`
      WITH locked AS (
        SELECT seq, event_count FROM event_outbox
         WHERE published_at IS NULL
         ORDER BY seq
         LIMIT ${batchSize}
           FOR UPDATE SKIP LOCKED
      ), counted AS (
        SELECT seq,
               sum(event_count) OVER (ORDER BY seq) AS upto,
               row_number() OVER (ORDER BY seq) AS n,
               count(*) OVER () AS locked
          FROM locked
      )
      SELECT o.seq, o.id, o.envelope, o.event_count, c.locked
        FROM counted c
        JOIN event_outbox o ON o.seq = c.seq
       WHERE c.n = 1 OR c.upto <= ${batchSize}
       ORDER BY o.seq`;
}

/**
 * Publishes unpublished `event_outbox` rows to the bus in `seq` order and marks them published.
 * Wakes on NOTIFY (sent at commit by the outbox trigger), on a short poll, and when the bus
 * reconnects. Each round publishes a batch with every acknowledgement in flight at once. A
 * publish that fails leaves its row for the next round: nothing is lost, and a row published
 * twice (crash between publish and mark) is dropped by the bus's duplicate window (message id
 * = event id). The failing row keeps the error in
 * `last_error`, which is how the platform health check knows events are not going out.
 */
export class OutboxRelay {
  private readonly pollIntervalMs: number;
  private readonly maxBackoffMs: number;
  private readonly batchSize: number;
  private listener: { client: PoolClient; release: (err?: Error) => void } | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private draining: Promise<number> | undefined;
  private again = false;
  private stopped = true;
  /**
   * After a failed round, polls are skipped until then (doubling up to maxBackoffMs); NOTIFY
   * and a bus reconnect still wake the relay.
   */
  private failures = 0;
  private retryAt = 0;
  private stopWatchingBus: (() => void) | undefined;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.batchSize = options.batchSize ?? 1000;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.stopWatchingBus = this.options.bus.onReconnect(() => this.resume());
    await this.listen();
    this.pollTimer = setInterval(() => {
      if (Date.now() < this.retryAt) return;
      if (!this.listener) void this.listen();
      void this.drain();
    }, this.pollIntervalMs);
    void this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatchingBus?.();
    this.stopWatchingBus = undefined;
    clearInterval(this.pollTimer);
    await this.draining;
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      await listener.client.query(`UNLISTEN ${OUTBOX_CHANNEL}`).catch(() => undefined);
      listener.release();
    }
  }

  /**
   * Publishes until nothing is pending or a publish fails; returns how many were published.
   * Calls during a drain are folded into one more round after it.
   */
  drain(): Promise<number> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = (async () => {
      let total = 0;
      do {
        this.again = false;
        for (;;) {
          if (this.stopped) return total;
          const { published, more, failed } = await this.publishBatch();
          total += published;
          this.noteOutcome(failed);
          if (!more) break;
        }
      } while (this.again && !this.stopped);
      return total;
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  /**
   * The bus is back: what waited during the outage goes out now rather than after the backoff
   * (up to maxBackoffMs). A round still in flight is followed by a fresh one (drain folds it).
   */
  private resume(): void {
    if (this.stopped) return;
    this.options.logger.info('event bus reconnected: outbox relay publishing now');
    this.failures = 0;
    this.retryAt = 0;
    void this.drain();
  }

  private noteOutcome(failed: boolean): void {
    this.failures = failed ? this.failures + 1 : 0;
    this.retryAt = failed
      ? Date.now() + Math.min(this.maxBackoffMs, this.pollIntervalMs * 2 ** (this.failures - 1))
      : 0;
  }

  private async publishBatch(): Promise<{ published: number; more: boolean; failed: boolean }> {
    const { db, bus, logger } = this.options;
    try {
      return await withSystemScope(db, async (trx) => {
        const lock = await sql<{ locked: boolean }>`
          SELECT pg_try_advisory_xact_lock(hashtext(${RELAY_LOCK_KEY})) AS locked,
                 ${ROUND_SETTINGS}`.execute(trx);
        if (!lock.rows[0]?.locked) return { published: 0, more: false, failed: false };
        const { rows, more } = await this.takeRound(trx);
        // Every event of the round is published at once, with all acknowledgements in flight:
        // the client writes them in order on its one connection, so the stream stores them in
        // seq order. A row is published when each of its events is acknowledged; every such row
        // is marked; a row with a failed publish stays for the next round (so it may land after
        // rows behind it, and its acknowledged events again: the bus drops those as duplicates
        // by message id, and consumers are idempotent and order-tolerant per event), and the
        // round ends there with a backoff.
        const rowEvents = rows.map((row) => eventsOfRow(row.envelope));
        const spans = startPublishSpans(rowEvents.flat());
        const outcomes = await Promise.all(
          rowEvents.map(async (events) => {
            const results = await Promise.allSettled(events.map((event) => bus.publish(event)));
            return results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          }),
        );
        // Rows are marked by seq, their primary key (event ids are not indexed).
        const publishedRows = rows.filter((_, i) => !outcomes[i]);
        const publishedSeqs = publishedRows.map((row) => row.seq);
        const published = publishedRows.reduce((sum, row) => sum + row.event_count, 0);
        const firstFailed = outcomes.findIndex((outcome) => outcome !== undefined);
        spans.end(firstFailed >= 0);
        const rejected = outcomes[firstFailed];
        const failure = rejected && {
          seq: rows[firstFailed].seq,
          id: rows[firstFailed].id,
          error:
            rejected.reason instanceof Error ? rejected.reason.message : String(rejected.reason),
        };
        if (publishedSeqs.length > 0) {
          await trx
            .updateTable('event_outbox')
            .set((eb) => ({ published_at: sql`now()`, attempts: eb('attempts', '+', 1) }))
            .where('seq', '=', sql<string>`any(${publishedSeqs}::bigint[])`)
            .execute();
        }
        if (failure) {
          logger.warn(
            { eventId: failure.id, error: failure.error },
            'outbox relay could not publish; will retry',
          );
          await trx
            .updateTable('event_outbox')
            .set((eb) => ({
              attempts: eb('attempts', '+', 1),
              last_error: failure.error.slice(0, 1000),
            }))
            .where('seq', '=', failure.seq)
            .execute();
          return { published, more: false, failed: true };
        }
        return { published, more, failed: false };
      });
    } catch (err) {
      // Stopping while the database goes away too (Ctrl-C reaches an embedded Postgres at
      // the same moment) ends a round with "Connection terminated": expected, not an error.
      if (this.stopped) logger.debug({ err }, 'outbox relay round ended by shutdown');
      else logger.error({ err }, 'outbox relay round failed; will retry');
      return { published: 0, more: false, failed: true };
    }
  }

  /**
   * The rows of one round, in seq order: at most batchSize events (a batch row counts its
   * events), and always at least one row. Up to batchSize pending rows are locked, but only the
   * envelopes of the rows taken are read: a backlog of 1,000-event batch rows used to have every
   * pending row's envelope read and parsed in each round, to publish one of them.
   */
  private async takeRound(trx: Trx): Promise<{ rows: PendingRow[]; more: boolean }> {
    const { rows } = await claimRoundSql(this.batchSize).execute(trx);
    const locked = Number(rows[0]?.locked ?? 0);
    return { rows, more: locked === this.batchSize || rows.length < locked };
  }

  private async listen(): Promise<void> {
    if (this.stopped || this.listener) return;
    let client: PoolClient | undefined;
    try {
      client = await this.options.pool.connect();
      // The connection can die while stop() is releasing it: give it back to the pool once.
      let released = false;
      const connection = client;
      const release = (err?: Error) => {
        if (released) return;
        released = true;
        connection.release(err);
      };
      const listener = { client, release };
      client.on('notification', () => void this.drain());
      client.on('error', (err) => {
        if (this.stopped) return release(err);
        this.options.logger.warn(
          { err },
          'outbox relay lost its LISTEN connection; polling until it is back',
        );
        if (this.listener === listener) this.listener = undefined;
        release(err);
      });
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = listener;
    } catch (err) {
      client?.release(err instanceof Error ? err : undefined);
      this.options.logger.warn({ err }, 'outbox relay could not LISTEN; polling');
    }
  }
}
