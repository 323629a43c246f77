import type { EventInput } from '@crm/shared/events';

export const MESSAGE_MODULE = 'chat_messages';
export const MESSAGE_EVENT_TYPES = ['message.received', 'message.status_updated'] as const;

/**
 * `data` of `message.received`. The messaging receiver names the sender's wa_id (`from`) and
 * the message type; an ingested message its direction and sender.
 */
export interface MessageReceivedData {
  conversation_id: string;
  external_id: string;
  sent_at: string | null;
  from?: string;
  message_type?: string | null;
  direction?: 'inbound' | 'outbound';
  sender?: string | null;
}

/** `data` of `message.status_updated`. */
export interface MessageStatusUpdatedData {
  conversation_id: string;
  external_id: string;
  status: string;
  previous_status: string | null;
}

export function messageReceivedEvent(
  tenantId: string,
  messageId: string,
  data: MessageReceivedData,
): EventInput {
  return {
    type: 'message.received',
    tenant_id: tenantId,
    record: { module: MESSAGE_MODULE, id: messageId },
    data: { ...data },
  };
}

export function messageStatusUpdatedEvent(
  tenantId: string,
  messageId: string,
  data: MessageStatusUpdatedData,
): EventInput {
  return {
    type: 'message.status_updated',
    tenant_id: tenantId,
    record: { module: MESSAGE_MODULE, id: messageId },
    data: { ...data },
  };
}
