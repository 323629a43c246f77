import { CONVERSATION_STATUSES, channelSchema } from '@crm/records';
import { uuid } from '@crm/shared/http';
import { z } from 'zod';

/**
 * Conversations are listed by when they were stored or by their last message, each on its
 * (tenant_id, column, id) index (migration 0022).
 */
export const CONVERSATION_SORTABLE = ['created_at', 'last_message_at'] as const;
/** Filters of the conversation list; every one given must match. */
export const conversationFiltersSchema = z.object({
  channel: channelSchema.optional(),
  status: z
    .enum(CONVERSATION_STATUSES, {
      message: `status must be one of: ${CONVERSATION_STATUSES.join(', ')}`,
    })
    .optional(),
  contact_id: uuid('contact_id').optional(),
});
/**
 * A conversation's messages by when they were sent (chat_messages_by_conversation). The page
 * order picks which end page 1 starts from; within a page the messages read oldest first.
 */
export const MESSAGE_SORTABLE = ['sent_at'] as const;
/** A conversation id in a path; anything else is answered as an unknown conversation. */
export const conversationIdSchema = z.uuid();
