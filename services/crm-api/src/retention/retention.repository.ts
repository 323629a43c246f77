import { withSystemScope, type Database } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

/*
 * crm-api's retention statements (libs/shared/src/retention): the published rows of the event
 * outbox, across tenants by age alone (the system scope). A row the relay has not published is
 * never selected, whatever its age: `published_at IS NOT NULL` is the partial index's own
 * predicate (event_outbox_published, migration 0002).
 */

/** Deletes at most `limit` rows published before `cutoff`, oldest first; how many. */
export async function deletePublishedEventsBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const result = await withSystemScope(db, (trx) =>
    sql`DELETE FROM event_outbox WHERE seq IN (
          SELECT seq FROM event_outbox
           WHERE published_at IS NOT NULL AND published_at < ${cutoff}
           ORDER BY published_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(trx),
  );
  return Number(result.numAffectedRows ?? 0);
}

/** When the oldest row published before `cutoff` was published, or null. */
export async function oldestPublishedEventBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  const { rows } = await withSystemScope(db, (trx) =>
    sql<{ oldest: Date | null }>`SELECT min(published_at) AS oldest FROM event_outbox
      WHERE published_at IS NOT NULL AND published_at < ${cutoff}`.execute(trx),
  );
  return rows[0]?.oldest ?? null;
}
