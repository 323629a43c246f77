import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql } from 'kysely';
import { findContactIdByEmail, findContactIdByPhone } from '../contacts/contacts.repository';
import { conversationCreatedEvent } from './conversations.events';
import { DEFAULT_CHAT_CHANNEL, type ConversationInput } from './conversations.schema';

/**
 * One conversation as every writer's conversations are read: the channel's columns
 * (chat_conversations, which the messaging receiver keeps) and the details an ingest adds
 * (chat_conversation_details; null where there are none).
 */
export interface Conversation {
  id: string;
  channel: string;
  external_id: string;
  messaging_account_id: string | null;
  contact_name: string | null;
  last_message_at: Date | null;
  created_at: Date;
  subject: string | null;
  status: string | null;
  started_at: Date | null;
  contact_id: string | null;
  contact_email: string | null;
  contact_phone: string | null;
}

function conversations(trx: Trx, tenantId: string) {
  return trx
    .selectFrom('chat_conversations as c')
    .leftJoin('chat_conversation_details as d', 'd.conversation_id', 'c.id')
    .select([
      'c.id',
      'c.channel',
      'c.external_id',
      'c.messaging_account_id',
      'c.contact_name',
      'c.last_message_at',
      'c.created_at',
      'd.subject',
      'd.status',
      'd.started_at',
      'd.contact_id',
      'd.contact_email',
      'd.contact_phone',
    ])
    .where('c.tenant_id', '=', tenantId);
}

export async function findConversation(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<Conversation | undefined> {
  return conversations(trx, tenantId).where('c.id', '=', id).executeTakeFirst();
}

/** What a conversation list may be narrowed to; every one given must match. */
export interface ConversationFilters {
  channel?: string;
  status?: 'open' | 'pending' | 'closed';
  contact_id?: string;
}

/**
 * What the conversation list may be sorted by, each on its `(tenant_id, column, id)` index
 * (migration 0022). last_message_at is NULL until a message arrives: those conversations come
 * last ascending and first descending, as the index holds them.
 */
export const CONVERSATION_SORT_KEYS = {
  created_at: { expression: sql`c.created_at`, type: 'timestamptz' },
  last_message_at: { expression: sql`c.last_message_at`, type: 'timestamptz', nullable: true },
} satisfies Record<string, SortKey>;
export type ConversationSortKey = keyof typeof CONVERSATION_SORT_KEYS;

/**
 * A page of the tenant's conversations, whichever wrote them, by page or by cursor (the shared
 * keyset helper).
 */
export async function listConversations(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<ConversationSortKey>,
  filters: ConversationFilters,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Conversation>> {
  let query = conversations(trx, tenantId);
  if (filters.channel !== undefined) query = query.where('c.channel', '=', filters.channel);
  if (filters.status !== undefined) query = query.where('d.status', '=', filters.status);
  if (filters.contact_id !== undefined) {
    query = query.where('d.contact_id', '=', filters.contact_id);
  }
  return paginateByKeyset(trx, query, page, {
    sortKeys: CONVERSATION_SORT_KEYS,
    tiebreak: 'c.id',
    binding: listCursorBinding(binding.secret, 'chat_conversations', tenantId, { ...filters }),
    filtered: Object.values(filters).some((value) => value !== undefined),
  });
}

/**
 * The conversations with this external id, on `channel` when given, else on any channel (a
 * message names its conversation by external id; the channel only when that is ambiguous).
 */
export async function findConversationsByExternalId(
  trx: Trx,
  tenantId: string,
  externalId: string,
  channel?: string,
): Promise<Array<{ id: string; channel: string }>> {
  let query = trx
    .selectFrom('chat_conversations')
    .select(['id', 'channel'])
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId);
  if (channel !== undefined) query = query.where('channel', '=', channel);
  return query.orderBy('channel').execute();
}

/**
 * A channel receiver's conversation with one party (the messaging receiver: the customer's
 * wa_id on a business number), created on first contact. A name given replaces the stored
 * one, none keeps it; the last message time only moves forward. No event.
 */
export async function upsertChannelConversation(
  trx: Trx,
  conversation: {
    tenantId: string;
    channel: string;
    messagingAccountId: string | null;
    externalId: string;
    contactName: string | null;
    lastMessageAt: Date | null;
  },
): Promise<string> {
  const row = await trx
    .insertInto('chat_conversations')
    .values({
      tenant_id: conversation.tenantId,
      channel: conversation.channel,
      messaging_account_id: conversation.messagingAccountId,
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

/** Moves a conversation's last message time forward to `at` (never back, null changes nothing). */
export async function touchConversation(
  trx: Trx,
  conversationId: string,
  at: Date | null,
): Promise<void> {
  if (!at) return;
  await trx
    .updateTable('chat_conversations')
    .set({ last_message_at: sql`greatest(last_message_at, ${at}::timestamptz)` })
    .where('id', '=', conversationId)
    .execute();
}

/** The contact an email (first) or phone names, when exactly one matches. */
async function matchingContact(
  trx: Trx,
  tenantId: string,
  email: string | null,
  phone: string | null,
): Promise<string | null> {
  const byEmail = email ? await findContactIdByEmail(trx, tenantId, email) : undefined;
  if (byEmail) return byEmail;
  return (phone ? await findContactIdByPhone(trx, tenantId, phone) : undefined) ?? null;
}

/**
 * An ingested conversation (MCP's ingest_chat_conversations, migrate), upserted by (channel,
 * external id) in the table the messaging receiver writes, its subject, status, start and
 * contact beside it. A field left out keeps the stored value; the contact link follows the
 * contact email / phone whenever either is given. A new conversation emits
 * `conversation.created`; an update emits nothing.
 */
export async function upsertConversation(
  trx: Trx,
  tenantId: string,
  input: ConversationInput,
): Promise<{ conversation: Conversation; created: boolean }> {
  const channel = input.channel ?? DEFAULT_CHAT_CHANNEL;
  const inserted = await trx
    .insertInto('chat_conversations')
    .values({ tenant_id: tenantId, channel, external_id: input.external_id })
    .onConflict((oc) => oc.columns(['tenant_id', 'channel', 'external_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  const created = inserted !== undefined;
  const id =
    inserted?.id ??
    (await findConversationsByExternalId(trx, tenantId, input.external_id, channel))[0].id;

  const stored = created
    ? undefined
    : await trx
        .selectFrom('chat_conversation_details')
        .select(['contact_email', 'contact_phone', 'contact_id'])
        .where('conversation_id', '=', id)
        .executeTakeFirst();
  const details: {
    subject?: string | null;
    status?: ConversationInput['status'];
    started_at?: Date | null;
    contact_email?: string | null;
    contact_phone?: string | null;
    contact_id?: string | null;
  } = {};
  for (const key of [
    'subject',
    'status',
    'started_at',
    'contact_email',
    'contact_phone',
  ] as const) {
    if (input[key] !== undefined) Object.assign(details, { [key]: input[key] });
  }
  if (input.contact_email !== undefined || input.contact_phone !== undefined) {
    details.contact_id = await matchingContact(
      trx,
      tenantId,
      input.contact_email !== undefined ? input.contact_email : (stored?.contact_email ?? null),
      input.contact_phone !== undefined ? input.contact_phone : (stored?.contact_phone ?? null),
    );
  }
  if (Object.keys(details).length > 0) {
    await trx
      .insertInto('chat_conversation_details')
      .values({ conversation_id: id, tenant_id: tenantId, ...details })
      .onConflict((oc) =>
        oc.column('conversation_id').doUpdateSet({ ...details, updated_at: sql`now()` }),
      )
      .execute();
  }
  const conversation = (await findConversation(trx, tenantId, id)) as Conversation;
  if (created) {
    await writeEvent(
      trx,
      conversationCreatedEvent(tenantId, id, {
        channel,
        external_id: conversation.external_id,
        contact_id: conversation.contact_id,
        subject: conversation.subject,
        status: conversation.status,
        started_at: conversation.started_at?.toISOString() ?? null,
      }),
    );
  }
  return { conversation, created };
}
