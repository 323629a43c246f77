import { z } from 'zod';
import { optionalDateTime, optionalText, recordObject, requiredText } from '../fields';
import { channelSchema, MAX_CONVERSATION_EXTERNAL_ID } from '../conversations/conversations.schema';

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
export const MAX_MESSAGE_EXTERNAL_ID = 200;
export const MAX_MESSAGE_BODY = 20_000;
export const MAX_MESSAGE_SENDER = 200;

/**
 * A chat message as MCP's ingest_chat_messages and migrate send one: stored once per
 * external id (unique per tenant: a re-sent message is not stored again) in the conversation
 * with `conversation_external_id` (on `channel`, needed only when several channels have a
 * conversation with that id). Direction defaults to inbound. The sender is kept in the
 * message's payload, beside the rest of what was sent.
 */
export const messageInputSchema = recordObject('message', {
  conversation_external_id: requiredText('conversation_external_id', MAX_CONVERSATION_EXTERNAL_ID),
  channel: channelSchema.optional(),
  external_id: requiredText('external_id', MAX_MESSAGE_EXTERNAL_ID),
  direction: z
    .enum(MESSAGE_DIRECTIONS, {
      error: `direction must be one of: ${MESSAGE_DIRECTIONS.join(', ')}`,
    })
    .default('inbound'),
  body: optionalText('body', MAX_MESSAGE_BODY),
  sender: optionalText('sender', MAX_MESSAGE_SENDER),
  sent_at: optionalDateTime('sent_at'),
});
export type MessageInput = z.output<typeof messageInputSchema>;

/** Element of an ingest's `data`: the message and whether this call stored it (false: a re-send). */
export const messageResultItemSchema = z.object({
  id: z.uuid(),
  external_id: z.string(),
  conversation_id: z.uuid(),
  created: z.boolean(),
});
export type MessageResultItem = z.infer<typeof messageResultItemSchema>;

// A channel may deliver a message's statuses out of order; a late `delivered` must not undo `read`.
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
