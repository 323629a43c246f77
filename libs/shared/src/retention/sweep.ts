import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { RetentionPolicy } from './policies';

/**
 * One policy's enforcement on one table, written by the owning service in its
 * `*.repository.ts`: a bounded batch (one statement, its own short transaction, in the system
 * scope where the table has row-level security) and the cheap question health asks.
 */
export interface RetentionSweep {
  /** The table (or table.column) this sweep acts on: named in logs and health. */
  table: string;
  policy: RetentionPolicy;
  /** How long a row is kept past its time column, in ms (the configured value). */
  keepMs: number;
  /**
   * What a batch removes: rows (the default), or whole partitions of a table partitioned by
   * time (partitionSweep), one per batch.
   */
  unit?: 'rows' | 'partitions';
  /**
   * Removes (or strips) at most `limit` rows whose time is before `cutoff`, oldest first, and
   * returns how many it changed. Rows another transaction holds are skipped, not waited for.
   * A partition sweep drops at most one partition whose upper bound is at or before `cutoff`.
   */
  sweepBatch(db: Kysely<Database>, cutoff: Date, limit: number): Promise<number>;
  /**
   * The time of the oldest row this sweep would remove at `cutoff`, or null when there is none
   * (an index-backed min()); for a partition sweep, the upper bound of the oldest partition it
   * would drop.
   */
  oldestBefore(db: Kysely<Database>, cutoff: Date): Promise<Date | null>;
  /**
   * Run by the worker before each round's sweeps, and once before its start() resolves: what
   * the table needs ready before rows arrive (a partitioned table's partitions ahead of `now`).
   * Returns what it made, for the log. Bounded by its own statements' timeouts; a failure is
   * logged and the next round tries again.
   */
  prepare?(db: Kysely<Database>, now: Date): Promise<string[]>;
  /**
   * What the table lacks at `now` that its writes need (a partition not made ahead), or null:
   * health reports the table behind, saying this.
   */
  missing?(db: Kysely<Database>, now: Date): Promise<string | null>;
}

/** A sweep of `policy` over `table`, with the policy's configured keep period. */
export function retentionSweep(
  table: string,
  policy: RetentionPolicy,
  keepMs: number,
  statements: Pick<RetentionSweep, 'sweepBatch' | 'oldestBefore'>,
): RetentionSweep {
  return { table, policy, keepMs, ...statements };
}

/**
 * A sweep of a table partitioned by time: each batch drops one partition whose upper bound is
 * past the policy (a whole range of rows at once, no row updated or index entry written), and
 * each round first makes the partitions ahead (`prepare`). A row is then kept up to one
 * partition's span past its policy.
 */
export function partitionSweep(
  table: string,
  policy: RetentionPolicy,
  keepMs: number,
  statements: {
    /** Drops the oldest partition whose upper bound is at or before `cutoff`: 1, or 0 if none. */
    dropOneBefore(db: Kysely<Database>, cutoff: Date): Promise<number>;
  } & Pick<RetentionSweep, 'oldestBefore'> &
    Required<Pick<RetentionSweep, 'prepare' | 'missing'>>,
): RetentionSweep {
  const { dropOneBefore, ...rest } = statements;
  return {
    table,
    policy,
    keepMs,
    unit: 'partitions',
    sweepBatch: (db, cutoff) => dropOneBefore(db, cutoff),
    ...rest,
  };
}
