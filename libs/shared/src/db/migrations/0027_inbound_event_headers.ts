import { sql, type Kysely } from 'kysely';

/**
 * The ledger keeps each delivery's request headers beside its raw body (the audit view shows
 * them), redacted before they are written: signature headers and anything secret-like are kept
 * by name only, their value replaced (libs/shared/src/inbound/ledger-headers.ts), so the table
 * never holds a credential. Rows recorded before this migration have none (null).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE inbound_events ADD COLUMN headers jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE inbound_events DROP COLUMN headers`.execute(db);
}
