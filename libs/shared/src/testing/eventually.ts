import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

/**
 * Retries `check` until it stops throwing (an assertion that becomes true once asynchronous
 * work lands), or fails with its last error after `timeoutMs`. Not a timing assertion: the
 * timeout only bounds how long a broken build waits.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/**
 * Waits until one statement whose text is LIKE `queryLike` waits on a lock (a lock another
 * test connection holds), asked from `db`'s pool: from the lock holder's own transaction,
 * pg_stat_activity would show one snapshot for the whole transaction.
 */
export async function untilWaitingOnLock(db: Kysely<Database>, queryLike: string): Promise<void> {
  await eventually(async () => {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query LIKE ${queryLike}`.execute(db);
    expect(Number(rows[0].n)).toBe(1);
  });
}
