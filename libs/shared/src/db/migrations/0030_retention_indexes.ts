import { sql, type Kysely } from 'kysely';

/**
 * Retention (libs/shared/src/retention): each sweep finds its oldest rows through an index on
 * its time column, so a batch and health's min() read the head of an index, not the table.
 *
 * - `inbound_events`: the payload (raw_body, headers) is dropped after 30 days while the row and
 *   its (provider, delivery_id) key stay 90, so a provider re-sending is still refused:
 *   raw_body becomes nullable (null: no longer kept). `inbound_events_payload_by_received`
 *   holds only rows still carrying a payload, so the payload sweep does not walk the 60 days of
 *   rows it has already stripped; `inbound_events_by_received` serves the row sweep.
 * - `network_events`, `email_opens`, `email_clicks`: by created_at across tenants (their list
 *   indexes lead with tenant_id).
 * - `workflow_runs`: by started_at across tenants (the steps go with their run, ON DELETE
 *   CASCADE).
 *
 * The age indexes are on the time column's UTC wall-clock value (`created_at AT TIME ZONE
 * 'UTC'`), an expression only the sweeps write: a plain index on the column would also offer
 * itself to the tenants' lists, which order by the same column, and the planner took it (with a
 * filter on the tenant and a sort) over their tenant-leading indexes for a tenant holding most
 * rows. The payload index needs no such care: no list has its predicate.
 *
 * The outbox (published_at, partial), sessions, rate_limits, migrate_nonces and the OAuth
 * tables already have the index their sweep reads. CREATE INDEX (not CONCURRENTLY: migrations
 * run in a transaction) holds writes to each table while it builds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE inbound_events ALTER COLUMN raw_body DROP NOT NULL`.execute(db);
  await sql`CREATE INDEX inbound_events_payload_by_received ON inbound_events (received_at)
    WHERE raw_body IS NOT NULL`.execute(db);
  await sql`CREATE INDEX inbound_events_by_received
    ON inbound_events ((received_at AT TIME ZONE 'UTC'))`.execute(db);
  for (const table of ['network_events', 'email_opens', 'email_clicks']) {
    await sql`CREATE INDEX ${sql.id(`${table}_by_age`)}
      ON ${sql.table(table)} ((created_at AT TIME ZONE 'UTC'))`.execute(db);
  }
  await sql`CREATE INDEX workflow_runs_by_age
    ON workflow_runs ((started_at AT TIME ZONE 'UTC'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS workflow_runs_by_age, email_clicks_by_age, email_opens_by_age,
    network_events_by_age, inbound_events_by_received, inbound_events_payload_by_received`.execute(
    db,
  );
  await sql`UPDATE inbound_events SET raw_body = '' WHERE raw_body IS NULL`.execute(db);
  await sql`ALTER TABLE inbound_events ALTER COLUMN raw_body SET NOT NULL`.execute(db);
}
