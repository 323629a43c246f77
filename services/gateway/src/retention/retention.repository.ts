import { withSystemScope, type Database } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

/*
 * The gateway's retention statements (libs/shared/src/retention): rows that are refused anyway
 * once expired (sessions, OAuth authorization requests, codes and tokens), OAuth clients nobody
 * connected, and rate-limit counters whose window has ended. Each batch reads the head of the table's expiry index and
 * skips rows another transaction holds (a counter being taken, a token being used).
 */

const count = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0);

/** The tables whose rows end at their `expires_at`, and each one's key. */
const EXPIRING = {
  sessions: 'token_hash',
  oauth_authorization_requests: 'id',
  oauth_codes: 'code_hash',
  oauth_tokens: 'token_hash',
} as const;
export type ExpiringTable = keyof typeof EXPIRING;
export const EXPIRING_TABLES = Object.keys(EXPIRING) as ExpiringTable[];

/** Deletes at most `limit` rows of `table` that expired before `cutoff`, oldest first. */
export async function deleteExpiredBefore(
  db: Kysely<Database>,
  table: ExpiringTable,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const rows = sql.table(table);
  const key = sql.ref(EXPIRING[table]);
  return count(
    await withSystemScope(db, (trx) =>
      sql`DELETE FROM ${rows} WHERE ${key} IN (
            SELECT ${key} FROM ${rows} WHERE expires_at < ${cutoff}
             ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(trx),
    ),
  );
}

/** When the row of `table` that expired first before `cutoff` expired, or null. */
export async function oldestExpiredBefore(
  db: Kysely<Database>,
  table: ExpiringTable,
  cutoff: Date,
): Promise<Date | null> {
  const { rows } = await withSystemScope(db, (trx) =>
    sql<{ oldest: Date | null }>`SELECT min(expires_at) AS oldest FROM ${sql.table(table)}
      WHERE expires_at < ${cutoff}`.execute(trx),
  );
  return rows[0]?.oldest ?? null;
}

/*
 * OAuth clients nobody connected: created before the cutoff, no grant (a grant, even revoked,
 * is the tenant's record and would go with its client) and no authorization request still
 * waiting for consent. A batch locks its candidates first, skipping any another transaction
 * holds (one inserting a grant or request for it holds it), then deletes those that still have
 * neither in a second statement: its snapshot is taken once they are locked, so it sees a grant
 * committed meanwhile, and none can be added until the delete commits.
 */
const unusedClient = (cutoff: Date) => sql`c.created_at < ${cutoff}
  AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.client_id)
  AND NOT EXISTS (SELECT 1 FROM oauth_authorization_requests r
    WHERE r.client_id = c.client_id AND r.expires_at > now())`;

/** Deletes at most `limit` unused clients created before `cutoff`, oldest first. */
export async function deleteUnusedClientsBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  return withSystemScope(db, async (trx) => {
    const { rows } = await sql<{ client_id: string }>`SELECT c.client_id FROM oauth_clients c
      WHERE ${unusedClient(cutoff)}
      ORDER BY c.created_at LIMIT ${limit} FOR UPDATE OF c SKIP LOCKED`.execute(trx);
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.client_id);
    return count(
      await sql`DELETE FROM oauth_clients c
        WHERE c.client_id = ANY(${ids}::text[]) AND ${unusedClient(cutoff)}`.execute(trx),
    );
  });
}

/** When the unused client created first before `cutoff` was created, or null. */
export async function oldestUnusedClientBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  const { rows } = await withSystemScope(db, (trx) =>
    sql<{ created_at: Date }>`SELECT c.created_at FROM oauth_clients c
      WHERE ${unusedClient(cutoff)} ORDER BY c.created_at LIMIT 1`.execute(trx),
  );
  return rows[0]?.created_at ?? null;
}

/*
 * rate_limits is rate-limiter-flexible's table (migration 0003): written by the gateway's own
 * database role, not a tenant table, so it is swept outside the system scope. `expire` is the
 * window's end in epoch ms.
 */

/** Deletes at most `limit` counters whose window ended before `cutoff`, oldest first. */
export async function deleteCountersExpiredBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  return count(
    await sql`DELETE FROM rate_limits WHERE key IN (
          SELECT key FROM rate_limits WHERE expire < ${cutoff.getTime()}
           ORDER BY expire LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(db),
  );
}

/** When the counter whose window ended first before `cutoff` ended, or null. */
export async function oldestCounterExpiredBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  const { rows } = await sql<{ oldest: string | null }>`SELECT min(expire) AS oldest
    FROM rate_limits WHERE expire < ${cutoff.getTime()}`.execute(db);
  const oldest = rows[0]?.oldest;
  return oldest === null || oldest === undefined ? null : new Date(Number(oldest));
}
