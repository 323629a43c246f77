import { sql, type Kysely } from 'kysely';

/**
 * Cheaper outbox writes (docs/benchmarks.md, lead import). `envelope` becomes `json`: the relay
 * only forwards it, so it is stored as written instead of being parsed into jsonb on every
 * insert (`envelope->>'x'` still works). The unique index on `id` goes: the relay marks rows
 * by `seq`, nothing looks rows up by id, event ids are random UUIDs, and the bus drops a
 * repeated id anyway (JetStream message id = event id). Changing the type rewrites the table
 * under an exclusive lock: short, as published rows are pruned after 7 days.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE event_outbox ALTER COLUMN envelope TYPE json USING envelope::json`.execute(
    db,
  );
  await sql`ALTER TABLE event_outbox DROP CONSTRAINT event_outbox_id_key`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE event_outbox ADD CONSTRAINT event_outbox_id_key UNIQUE (id)`.execute(db);
  await sql`ALTER TABLE event_outbox ALTER COLUMN envelope TYPE jsonb USING envelope::jsonb`.execute(
    db,
  );
}
