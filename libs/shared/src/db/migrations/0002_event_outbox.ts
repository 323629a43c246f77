import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

export const OUTBOX_CHANNEL = 'crm_event_outbox';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE event_outbox (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    last_error text
  )`.execute(db);
  // The relay's work list: only unpublished rows, in commit order.
  await sql`CREATE INDEX event_outbox_pending ON event_outbox (seq) WHERE published_at IS NULL`.execute(
    db,
  );
  await sql`CREATE INDEX event_outbox_published ON event_outbox (published_at) WHERE published_at IS NOT NULL`.execute(
    db,
  );
  // Wake relays at commit (NOTIFY is transactional), once per inserting statement.
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION notify_event_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM pg_notify('${OUTBOX_CHANNEL}', ''); RETURN NULL; END $$`,
    )
    .execute(db);
  await sql`CREATE TRIGGER event_outbox_notify AFTER INSERT ON event_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION notify_event_outbox()`.execute(db);
  await enableTenantRls(db, 'event_outbox');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS event_outbox`.execute(db);
  await sql`DROP FUNCTION IF EXISTS notify_event_outbox()`.execute(db);
}
