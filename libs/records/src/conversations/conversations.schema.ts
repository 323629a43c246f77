import { CONVERSATION_STATUSES } from '@crm/shared/db';
import { z } from 'zod';
import {
  optionalDateTime,
  optionalEmail,
  optionalEnum,
  optionalText,
  recordObject,
  requiredText,
} from '../fields';

export const MAX_CONVERSATION_EXTERNAL_ID = 200;
export const MAX_CONVERSATION_SUBJECT = 500;
/** The channel of a conversation ingested without one. */
export const DEFAULT_CHAT_CHANNEL = 'chat';
export { CONVERSATION_STATUSES };

const CHANNEL_RULE =
  'channel must be a lower-case name of 1 to 50 letters, digits or _ such as chat, messaging or sms';
/** A channel name: `chat`, `messaging` (the messaging receiver's), `sms`, `web_chat`, ... */
export const channelSchema = z
  .string({ error: CHANNEL_RULE })
  .trim()
  .regex(/^[a-z][a-z0-9_]{0,49}$/, { error: CHANNEL_RULE });

/**
 * A chat conversation as MCP's ingest_chat_conversations and migrate send one, upserted by
 * (channel, external_id): the same conversations the messaging receiver writes (channel
 * `messaging`, external id the customer's wa_id). `contact_email` / `contact_phone` link it to
 * the contact they name, when one matches. A field left out keeps the stored value.
 */
export const conversationInputSchema = recordObject('conversation', {
  external_id: requiredText('external_id', MAX_CONVERSATION_EXTERNAL_ID),
  channel: channelSchema.optional(),
  contact_email: optionalEmail('contact_email'),
  contact_phone: optionalText('contact_phone', 100),
  subject: optionalText('subject', MAX_CONVERSATION_SUBJECT),
  status: optionalEnum('status', CONVERSATION_STATUSES),
  started_at: optionalDateTime('started_at'),
});
export type ConversationInput = z.output<typeof conversationInputSchema>;

/** Element of an ingest's `data`: the stored conversation and whether this call created it. */
export const conversationResultItemSchema = z.object({
  id: z.uuid(),
  external_id: z.string(),
  channel: z.string(),
  contact_id: z.uuid().nullable(),
  created: z.boolean(),
});
export type ConversationResultItem = z.infer<typeof conversationResultItemSchema>;
