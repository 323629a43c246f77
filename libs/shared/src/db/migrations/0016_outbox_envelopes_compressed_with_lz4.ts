import { sql, type Kysely } from 'kysely';

/**
 * Outbox envelopes are TOAST-compressed with lz4 instead of Postgres' default pglz: a batch row
 * (up to 1,000 events, ~320 KB of JSON) is compressed as it is stored, and pglz was the largest
 * single cost of a bulk write's outbox insert. Measured on the 2-core VM (PostgreSQL 15), 3.2 MB
 * of envelopes (one 10,000-lead import) stored: pglz 28-34 ms, lz4 8 ms, uncompressed 9 ms; lz4
 * keeps the rows small as well. Only new values are affected (no rewrite).
 *
 * A server built without lz4 (it is optional at build time) refuses the setting: the column
 * then keeps pglz and nothing else changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$
    BEGIN
      ALTER TABLE event_outbox ALTER COLUMN envelope SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN
      RAISE NOTICE 'lz4 is not available on this server: outbox envelopes keep pglz';
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE event_outbox ALTER COLUMN envelope SET COMPRESSION pglz`.execute(db);
}
