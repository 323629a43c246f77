import { sql, type Kysely } from 'kysely';

/**
 * Indexes for crm-api's lists of what the receivers and MCP store (docs/receiver-records.md).
 * The shared page helper orders by the sort column and then `id`, both in the requested
 * direction, so each offered sort has an index (tenant_id, column, id), read forwards or
 * backwards with no sort step:
 *
 * - conversations by `created_at` or `last_message_at`;
 * - a conversation's messages by `sent_at`: chat_messages_by_conversation gains the `id` after
 *   `sent_at` (it served (tenant, conversation) lookups and still does);
 * - orders, payments, calls, email opens, clicks and replies, and network events by
 *   `created_at`, when the row was stored (their provider time may be missing). The network
 *   events' (tenant_id, created_at DESC) index is replaced by the ascending one with the id;
 * - orders and payments filtered by their contact, and email events filtered by the lead or
 *   contact of their email message, use the timeline's indexes of migration 0021
 *   (commerce_orders_by_contact, payment_events_by_contact, email_messages_by_lead and
 *   email_messages_by_contact).
 */
const BY_CREATED = [
  ['commerce_orders', 'commerce_orders_by_created'],
  ['payment_events', 'payment_events_by_created'],
  ['call_logs', 'call_logs_by_created'],
  ['email_opens', 'email_opens_by_created'],
  ['email_clicks', 'email_clicks_by_created'],
  ['email_replies', 'email_replies_by_created'],
  ['network_events', 'network_events_by_created'],
  ['chat_conversations', 'chat_conversations_by_created'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, name] of BY_CREATED) {
    await sql`CREATE INDEX ${sql.id(name)} ON ${sql.table(table)} (tenant_id, created_at, id)`.execute(
      db,
    );
  }
  await sql`DROP INDEX network_events_by_tenant`.execute(db);
  await sql`CREATE INDEX chat_conversations_by_last_message
    ON chat_conversations (tenant_id, last_message_at, id)`.execute(db);
  await sql`DROP INDEX chat_messages_by_conversation`.execute(db);
  await sql`CREATE INDEX chat_messages_by_conversation
    ON chat_messages (tenant_id, conversation_id, sent_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX chat_messages_by_conversation`.execute(db);
  await sql`CREATE INDEX chat_messages_by_conversation
    ON chat_messages (tenant_id, conversation_id, sent_at)`.execute(db);
  await sql`DROP INDEX IF EXISTS chat_conversations_by_last_message`.execute(db);
  await sql`CREATE INDEX network_events_by_tenant ON network_events (tenant_id, created_at DESC)`.execute(
    db,
  );
  for (const [, name] of BY_CREATED) {
    await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
  }
}
