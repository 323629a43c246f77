import { api, type Envelope } from './client';
import type { NumberedPage } from './products';

/** A conversation as every writer's are read: the channel's columns and the ingest's details. */
export interface Conversation {
  id: string;
  channel: string;
  external_id: string;
  messaging_account_id: string | null;
  contact_name: string | null;
  last_message_at: string | null;
  created_at: string;
  subject: string | null;
  status: string | null;
  started_at: string | null;
  contact_id: string | null;
  contact_email: string | null;
  contact_phone: string | null;
}

export interface ChatMessage {
  id: string;
  conversation_id: string;
  external_id: string;
  direction: 'inbound' | 'outbound';
  message_type: string | null;
  body: string | null;
  status: string | null;
  sent_at: string | null;
  /** What the channel or the sender sent: `sender` (MCP, migrate) or `from` (the receiver). */
  payload: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

/** The conversation list's `status` filter (chat_conversation_details.status). */
export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;

/** The sorts the conversation list offers (each backed by an index). */
export type ConversationSortColumn = 'created_at' | 'last_message_at';
export interface ConversationQuery {
  sortBy: ConversationSortColumn;
  sortOrder: 'asc' | 'desc';
  /** Every one given must match: a channel name, a status, a contact's id. */
  channel: string;
  status: string;
  contact_id: string;
}

export const CONVERSATIONS_PAGE_SIZE = 50;
export const MESSAGES_PAGE_SIZE = 50;

/** One page of conversations, by number (the list has no cursor). */
export function fetchConversationsPage(
  query: ConversationQuery,
  page: number,
  signal?: AbortSignal,
) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(CONVERSATIONS_PAGE_SIZE),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
  });
  if (query.channel.trim()) params.set('channel', query.channel.trim());
  if (query.status) params.set('status', query.status);
  if (query.contact_id) params.set('contact_id', query.contact_id);
  return api<NumberedPage<Conversation>>(`/api/crm/conversations?${params}`, { signal });
}

/** One conversation (GET /api/crm/conversations/:id). */
export function fetchConversation(id: string, signal?: AbortSignal) {
  return api<Envelope<{ conversation: Conversation }>>(
    `/api/crm/conversations/${encodeURIComponent(id)}`,
    { signal },
  );
}

/**
 * One page of a conversation's messages, newest page first (the API's default order): page 1
 * holds the latest messages, page 2 the ones before them; within a page they read oldest first.
 */
export function fetchMessagesPage(id: string, page: number, signal?: AbortSignal) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(MESSAGES_PAGE_SIZE),
    sortOrder: 'desc',
  });
  return api<NumberedPage<ChatMessage>>(
    `/api/crm/conversations/${encodeURIComponent(id)}/messages?${params}`,
    { signal },
  );
}
