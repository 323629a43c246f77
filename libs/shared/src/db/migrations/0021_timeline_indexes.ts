import { sql, type Kysely } from 'kysely';

/**
 * Indexes for a lead's or contact's timeline (GET /api/crm/leads/:id/timeline and
 * /api/crm/contacts/:id/timeline). Each source the timeline reads is found by its link to the
 * record and read newest first from one index (tenant_id, <link>, <time>, id), so a page of one
 * person's timeline reads that person's rows only, in order, and stops at the page's end.
 * Partial where the link may be null. The time is the expression the timeline orders by:
 * `COALESCE(occurred_at, created_at)` for email events (the provider's time when it gave one)
 * and `COALESCE(sent_at, created_at)` for chat messages.
 *
 * The email events' (tenant_id, message_id) indexes are replaced: the new ones start with the
 * same columns and serve every lookup the old ones did. activities already have theirs
 * (crm_activities_by_lead / _by_contact, migration 0019); conversations by contact have
 * chat_conversation_details_by_contact.
 */
const INDEXES: Array<[name: string, table: string, columns: string, where?: string]> = [
  [
    'crm_form_submissions_by_lead',
    'crm_form_submissions',
    'tenant_id, lead_id, created_at, id',
    'lead_id IS NOT NULL',
  ],
  ['crm_deals_by_lead', 'crm_deals', 'tenant_id, lead_id, created_at, id', 'lead_id IS NOT NULL'],
  [
    'crm_deals_by_contact',
    'crm_deals',
    'tenant_id, contact_id, created_at, id',
    'contact_id IS NOT NULL',
  ],
  [
    'email_messages_by_lead',
    'email_messages',
    'tenant_id, lead_id, sent_at, id',
    'lead_id IS NOT NULL',
  ],
  [
    'email_messages_by_contact',
    'email_messages',
    'tenant_id, contact_id, sent_at, id',
    'contact_id IS NOT NULL',
  ],
  ...(['email_opens', 'email_clicks', 'email_replies'].map((table) => [
    `${table}_by_message_time`,
    table,
    'tenant_id, message_id, (COALESCE(occurred_at, created_at)), id',
  ]) as Array<[string, string, string]>),
  [
    'chat_conversation_details_by_contact_email',
    'chat_conversation_details',
    'tenant_id, contact_email',
    'contact_email IS NOT NULL',
  ],
  [
    'chat_messages_by_conversation_time',
    'chat_messages',
    'tenant_id, conversation_id, (COALESCE(sent_at, created_at)), id',
  ],
  [
    'call_logs_by_from_number',
    'call_logs',
    'tenant_id, from_number, created_at, id',
    'from_number IS NOT NULL',
  ],
  [
    'call_logs_by_to_number',
    'call_logs',
    'tenant_id, to_number, created_at, id',
    'to_number IS NOT NULL',
  ],
  [
    'commerce_orders_by_contact',
    'commerce_orders',
    'tenant_id, contact_id, created_at, id',
    'contact_id IS NOT NULL',
  ],
  [
    'commerce_orders_by_email',
    'commerce_orders',
    'tenant_id, email, created_at, id',
    'email IS NOT NULL',
  ],
  [
    'payment_events_by_contact',
    'payment_events',
    'tenant_id, contact_id, created_at, id',
    'contact_id IS NOT NULL',
  ],
  [
    'payment_events_by_email',
    'payment_events',
    'tenant_id, email, created_at, id',
    'email IS NOT NULL',
  ],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns, where] of INDEXES) {
    await sql`CREATE INDEX ${sql.id(name)} ON ${sql.table(table)} (${sql.raw(columns)})
      ${where ? sql`WHERE ${sql.raw(where)}` : sql``}`.execute(db);
  }
  for (const table of ['email_opens', 'email_clicks', 'email_replies']) {
    await sql`DROP INDEX ${sql.id(`${table}_by_message`)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['email_opens', 'email_clicks', 'email_replies']) {
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`${table}_by_message`)}
      ON ${sql.table(table)} (tenant_id, message_id)`.execute(db);
  }
  for (const [name] of INDEXES) await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
}
