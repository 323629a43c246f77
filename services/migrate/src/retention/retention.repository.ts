import { withSystemScope, type Database } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

/*
 * migrate's retention statements (libs/shared/src/retention): request nonces, by seen_at on
 * migrate_nonces_by_seen (migration 0012). Rows are only ever inserted, never updated, so a
 * batch locks nothing a request waits on (and the system role may not lock them FOR UPDATE).
 */

/** Deletes at most `limit` nonces seen before `cutoff`, oldest first; how many. */
export async function deleteNoncesSeenBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const result = await withSystemScope(db, (trx) =>
    sql`DELETE FROM migrate_nonces WHERE nonce IN (
          SELECT nonce FROM migrate_nonces WHERE seen_at < ${cutoff}
           ORDER BY seen_at LIMIT ${limit})`.execute(trx),
  );
  return Number(result.numAffectedRows ?? 0);
}

/** When the oldest nonce seen before `cutoff` was seen, or null. */
export async function oldestNonceSeenBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  const { rows } = await withSystemScope(db, (trx) =>
    sql<{ oldest: Date | null }>`SELECT min(seen_at) AS oldest FROM migrate_nonces
      WHERE seen_at < ${cutoff}`.execute(trx),
  );
  return rows[0]?.oldest ?? null;
}
