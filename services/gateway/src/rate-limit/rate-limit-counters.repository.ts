import type { Pool } from 'pg';
import { COUNTERS_TABLE } from './limits';

/**
 * Deletes the rate-limit counters whose window ended before `cutoff` (epoch ms); returns how
 * many. On the pg pool the limiters themselves write through (rate-limiter-flexible), which is
 * all the sweeping worker is given.
 */
export async function deleteCountersExpiredBefore(pool: Pool, cutoff: number): Promise<number> {
  const { rowCount } = await pool.query(`DELETE FROM ${COUNTERS_TABLE} WHERE expire < $1`, [
    cutoff,
  ]);
  return rowCount ?? 0;
}
