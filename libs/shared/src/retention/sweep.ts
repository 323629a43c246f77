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
   * Removes (or strips) at most `limit` rows whose time is before `cutoff`, oldest first, and
   * returns how many it changed. Rows another transaction holds are skipped, not waited for.
   */
  sweepBatch(db: Kysely<Database>, cutoff: Date, limit: number): Promise<number>;
  /**
   * The time of the oldest row this sweep would remove at `cutoff`, or null when there is none
   * (an index-backed min()).
   */
  oldestBefore(db: Kysely<Database>, cutoff: Date): Promise<Date | null>;
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
