import { sql, type Kysely } from 'kysely';

/**
 * The tenant's recent events (GET /api/events) page newest first by keyset on
 * `(created_at, id)` within one tenant. Until now the outbox was only read by the relay, by
 * `seq`: listing one tenant's rows would scan every tenant's. `(tenant_id, created_at, id)`
 * serves the list in either direction and a cursor's `(created_at, id) < (...)` as one range;
 * the type filter is checked on the rows the range reads (a tenant's rows are pruned a week
 * after they are published, so the range stays bounded).
 *
 * Every outbox insert keeps one more index up to date: a bulk write stores batch rows of up
 * to a thousand events each, so that is one index entry per thousand imported events.
 * CREATE INDEX (not CONCURRENTLY: migrations run in a transaction) holds outbox writes while
 * it builds over the rows kept (a week of events).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX event_outbox_by_tenant ON event_outbox (tenant_id, created_at, id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS event_outbox_by_tenant`.execute(db);
}
