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
 * - orders and payments filtered by their contact: (tenant_id, contact_id, created_at, id), partial
 *   on a linked contact; email events filtered by the lead or contact of their email message
 *   find those messages by (tenant_id, lead_id) and (tenant_id, contact_id).
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
  for (const table of ['commerce_orders', 'payment_events']) {
    await sql`CREATE INDEX ${sql.id(`${table}_by_contact`)} ON ${sql.table(table)}
      (tenant_id, contact_id, created_at, id) WHERE contact_id IS NOT NULL`.execute(db);
  }
  for (const link of ['lead_id', 'contact_id']) {
    await sql`CREATE INDEX ${sql.id(`email_messages_by_${link.replace('_id', '')}`)}
      ON email_messages (tenant_id, ${sql.ref(link)}) WHERE ${sql.ref(link)} IS NOT NULL`.execute(
      db,
    );
  }
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
  await sql`DROP INDEX IF EXISTS chat_conversations_by_last_message, commerce_orders_by_contact,
    payment_events_by_contact, email_messages_by_lead, email_messages_by_contact`.execute(db);
  await sql`CREATE INDEX network_events_by_tenant ON network_events (tenant_id, created_at DESC)`.execute(
    db,
  );
  for (const [, name] of BY_CREATED) {
    await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
  }
}
