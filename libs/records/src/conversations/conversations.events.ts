import type { EventInput } from '@crm/shared/events';

export const CONVERSATION_MODULE = 'chat_conversations';
export const CONVERSATION_EVENT_TYPES = ['conversation.created'] as const;

/** `data` of `conversation.created`. */
export interface ConversationEventData {
  channel: string;
  external_id: string;
  contact_id: string | null;
  subject: string | null;
  status: string | null;
  started_at: string | null;
}

export function conversationCreatedEvent(
  tenantId: string,
  conversationId: string,
  data: ConversationEventData,
): EventInput {
  return {
    type: 'conversation.created',
    tenant_id: tenantId,
    record: { module: CONVERSATION_MODULE, id: conversationId },
    data: { ...data },
  };
}
