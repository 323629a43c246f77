import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';
import type { InboundMessage, StatusUpdate } from './payload';

export const CHANNEL = 'messaging';

/**
 * The conversation with one customer (wa_id) on a business number, created on first contact.
 * A name from `contacts[]` replaces the stored one; the last message time only moves forward.
 */
export async function upsertConversation(
  trx: Trx,
  conversation: {
    tenantId: string;
    accountId: string;
    externalId: string;
    contactName: string | null;
    lastMessageAt: Date | null;
  },
): Promise<string> {
  const row = await trx
    .insertInto('chat_conversations')
    .values({
      tenant_id: conversation.tenantId,
      channel: CHANNEL,
      messaging_account_id: conversation.accountId,
      external_id: conversation.externalId,
      contact_name: conversation.contactName,
      last_message_at: conversation.lastMessageAt,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'channel', 'external_id']).doUpdateSet({
        contact_name: sql`coalesce(excluded.contact_name, chat_conversations.contact_name)`,
        messaging_account_id: sql`excluded.messaging_account_id`,
        // GREATEST ignores nulls: an unknown time never clears a known one.
        last_message_at: sql`greatest(chat_conversations.last_message_at, excluded.last_message_at)`,
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Inserts an inbound message; undefined when its id is already stored (a resend). */
export async function insertInboundMessage(
  trx: Trx,
  tenantId: string,
  conversationId: string,
  message: InboundMessage,
): Promise<string | undefined> {
  const row = await trx
    .insertInto('chat_messages')
    .values({
      tenant_id: tenantId,
      conversation_id: conversationId,
      external_id: message.externalId,
      direction: 'inbound',
      message_type: message.type,
      body: message.body,
      sent_at: message.sentAt,
      payload: JSON.stringify(message.payload),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'external_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** The stored message a status is about (locked: its status is about to be compared and set). */
export async function findMessage(
  trx: Trx,
  tenantId: string,
  externalId: string,
): Promise<{ id: string; conversationId: string; status: string | null } | undefined> {
  return trx
    .selectFrom('chat_messages')
    .select(['id', 'conversation_id as conversationId', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId)
    .forUpdate()
    .executeTakeFirst();
}

export async function setMessageStatus(trx: Trx, messageId: string, status: string) {
  await trx
    .updateTable('chat_messages')
    .set({ status, updated_at: new Date() })
    .where('id', '=', messageId)
    .execute();
}

/**
 * A status for a message we have no row of (sent from outside this CRM): the outbound message
 * is recorded with that status. Its send time is unknown; the status time stands in for it.
 * Undefined when a concurrent delivery stored it first.
 */
export async function insertOutboundMessage(
  trx: Trx,
  tenantId: string,
  conversationId: string,
  update: StatusUpdate,
): Promise<string | undefined> {
  const row = await trx
    .insertInto('chat_messages')
    .values({
      tenant_id: tenantId,
      conversation_id: conversationId,
      external_id: update.externalId,
      direction: 'outbound',
      status: update.status,
      sent_at: update.at,
      payload: JSON.stringify(update.payload),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'external_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

// Meta may deliver a message's statuses out of order; a late `delivered` must not undo `read`.
const PROGRESS = new Map([
  ['sent', 1],
  ['delivered', 2],
  ['read', 3],
]);

/**
 * Whether `next` replaces `current`: a different status, and not a step back along
 * sent -> delivered -> read. Any other status (failed, deleted, ...) always applies.
 */
export function statusAdvances(current: string | null, next: string): boolean {
  if (current === next) return false;
  const from = current === null ? undefined : PROGRESS.get(current);
  const to = PROGRESS.get(next);
  return from === undefined || to === undefined || to > from;
}
