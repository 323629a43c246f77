import { withSystemScope, type Database } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

/*
 * webhook-ingest's retention statements (libs/shared/src/retention), across tenants by age
 * alone (the system scope): each batch is one statement on the head of an index on the time
 * column (migration 0030), skipping rows another transaction holds (a delivery being claimed
 * again), and changes nothing but the rows it selects.
 */

/**
 * A time column's UTC wall-clock value: what the age indexes hold (an expression the tenants'
 * lists never use, so those indexes never compete with the lists' own). `cutoff` is compared
 * in the same terms, and a min() is turned back into an instant.
 */
const utc = (column: string) => sql`(${sql.ref(column)} AT TIME ZONE 'UTC')`;
const utcOf = (cutoff: Date) => sql`(${cutoff}::timestamptz AT TIME ZONE 'UTC')`;

const count = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0);
const oldest = (result: { rows: { oldest: Date | null }[] }) => result.rows[0]?.oldest ?? null;

/**
 * Drops the payload (raw body, headers) of at most `limit` ledger rows received before
 * `cutoff`; the rows stay, with their (provider, delivery_id) key, outcome and detail, so a
 * provider re-sending the delivery is still refused as a duplicate. Only rows recorded before
 * inbound_event_payloads carry a payload themselves (later ones keep it in that table, dropped
 * a week at a time: payload-partitions.repository.ts); their partial index empties as this
 * strips them, and then costs nothing.
 */
export async function dropLedgerPayloadsBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  return count(
    await withSystemScope(db, (trx) =>
      sql`UPDATE inbound_events SET raw_body = NULL, headers = NULL WHERE id IN (
            SELECT id FROM inbound_events
             WHERE raw_body IS NOT NULL AND received_at < ${cutoff}
             ORDER BY received_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(trx),
    ),
  );
}

/** When the oldest ledger row still carrying its payload and received before `cutoff` came. */
export async function oldestLedgerPayloadBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  return oldest(
    await withSystemScope(db, (trx) =>
      sql<{ oldest: Date | null }>`SELECT min(received_at) AS oldest FROM inbound_events
        WHERE raw_body IS NOT NULL AND received_at < ${cutoff}`.execute(trx),
    ),
  );
}

/** Deletes at most `limit` ledger rows received before `cutoff`, oldest first. */
export async function deleteLedgerRowsBefore(
  db: Kysely<Database>,
  cutoff: Date,
  limit: number,
): Promise<number> {
  return count(
    await withSystemScope(db, (trx) =>
      sql`DELETE FROM inbound_events WHERE id IN (
            SELECT id FROM inbound_events WHERE ${utc('received_at')} < ${utcOf(cutoff)}
             ORDER BY ${utc('received_at')} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(trx),
    ),
  );
}

/** When the oldest ledger row received before `cutoff` came. */
export async function oldestLedgerRowBefore(
  db: Kysely<Database>,
  cutoff: Date,
): Promise<Date | null> {
  return oldest(
    await withSystemScope(db, (trx) =>
      sql<{ oldest: Date | null }>`SELECT min(${utc('received_at')}) AT TIME ZONE 'UTC' AS oldest
        FROM inbound_events WHERE ${utc('received_at')} < ${utcOf(cutoff)}`.execute(trx),
    ),
  );
}

/** The provider event tables, each swept by created_at (its `<table>_by_age` index). */
export const PROVIDER_EVENT_TABLES = ['network_events', 'email_opens', 'email_clicks'] as const;
export type ProviderEventTable = (typeof PROVIDER_EVENT_TABLES)[number];

/** Deletes at most `limit` rows of `table` created before `cutoff`, oldest first. */
export async function deleteProviderEventsBefore(
  db: Kysely<Database>,
  table: ProviderEventTable,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const events = sql.table(table);
  return count(
    await withSystemScope(db, (trx) =>
      sql`DELETE FROM ${events} WHERE id IN (
            SELECT id FROM ${events} WHERE ${utc('created_at')} < ${utcOf(cutoff)}
             ORDER BY ${utc('created_at')} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(trx),
    ),
  );
}

/** When the oldest row of `table` created before `cutoff` was created. */
export async function oldestProviderEventBefore(
  db: Kysely<Database>,
  table: ProviderEventTable,
  cutoff: Date,
): Promise<Date | null> {
  return oldest(
    await withSystemScope(db, (trx) =>
      sql<{ oldest: Date | null }>`SELECT min(${utc('created_at')}) AT TIME ZONE 'UTC' AS oldest
        FROM ${sql.table(table)} WHERE ${utc('created_at')} < ${utcOf(cutoff)}`.execute(trx),
    ),
  );
}
