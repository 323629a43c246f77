import type { ChatMessagesTable, Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import type { MessageDirection } from './messages.schema';

/** Every column a message is read with. */
export const MESSAGE_COLUMNS = [
  'id',
  'conversation_id',
  'external_id',
  'direction',
  'message_type',
  'body',
  'status',
  'sent_at',
  'payload',
  'created_at',
  'updated_at',
] as const;
export type Message = Pick<Selectable<ChatMessagesTable>, (typeof MESSAGE_COLUMNS)[number]>;

/**
 * Inserts a message once per external id (unique per tenant); undefined when that id is
 * already stored (a re-send, or a concurrent delivery that stored it first). Fields left
 * undefined keep their column's default (null).
 */
export async function insertMessage(
  trx: Trx,
  message: {
    tenantId: string;
    conversationId: string;
    externalId: string;
    direction: MessageDirection;
    messageType?: string | null;
    body?: string | null;
    status?: string | null;
    sentAt: Date | null;
    /** What the channel or the sender sent, stored as jsonb. */
    payload: unknown;
  },
): Promise<string | undefined> {
  const row = await trx
    .insertInto('chat_messages')
    .values({
      tenant_id: message.tenantId,
      conversation_id: message.conversationId,
      external_id: message.externalId,
      direction: message.direction,
      message_type: message.messageType,
      body: message.body,
      status: message.status,
      sent_at: message.sentAt,
      payload: JSON.stringify(message.payload),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'external_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/**
 * The stored message with this external id, locked when `forUpdate` (its status is about to be
 * compared and set).
 */
export async function findMessageByExternalId(
  trx: Trx,
  tenantId: string,
  externalId: string,
  options: { forUpdate?: boolean } = {},
): Promise<{ id: string; conversationId: string; status: string | null } | undefined> {
  const query = trx
    .selectFrom('chat_messages')
    .select(['id', 'conversation_id as conversationId', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId);
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export async function setMessageStatus(trx: Trx, messageId: string, status: string) {
  await trx
    .updateTable('chat_messages')
    .set({ status, updated_at: new Date() })
    .where('id', '=', messageId)
    .execute();
}

/**
 * What a conversation's messages may be sorted by: sent_at, on chat_messages_by_conversation
 * `(tenant_id, conversation_id, sent_at, id)` (migration 0022). A message whose provider gave
 * no time has none: those come last ascending and first descending, as the index holds them.
 */
export const MESSAGE_SORT_KEYS = {
  sent_at: { expression: sql`chat_messages.sent_at`, type: 'timestamptz', nullable: true },
} satisfies Record<string, SortKey>;
export type MessageSortKey = keyof typeof MESSAGE_SORT_KEYS;

/**
 * A page of one conversation's messages, by page or by cursor (the shared keyset helper); the
 * conversation is one of the cursor's filters, so a cursor of one conversation is refused by
 * another's.
 */
export async function listMessages(
  trx: Trx,
  tenantId: string,
  conversationId: string,
  page: CursorPageQuery<MessageSortKey>,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Message>> {
  const query = trx
    .selectFrom('chat_messages')
    .select(MESSAGE_COLUMNS)
    .where('chat_messages.tenant_id', '=', tenantId)
    .where('chat_messages.conversation_id', '=', conversationId);
  return paginateByKeyset(trx, query, page, {
    sortKeys: MESSAGE_SORT_KEYS,
    tiebreak: 'chat_messages.id',
    binding: listCursorBinding(binding.secret, 'chat_messages', tenantId, {
      conversation_id: conversationId,
    }),
    // Always one conversation: its index (tenant_id, conversation_id, sent_at, id) both filters
    // and orders, so the count may follow the sort.
    filtered: false,
  });
}
