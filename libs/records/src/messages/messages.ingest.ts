import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import {
  findConversationsByExternalId,
  touchConversation,
} from '../conversations/conversations.repository';
import { parseRecords } from '../fields';
import { ingestResult, type IngestResult, type RecordError } from '../ingest-result';
import { messageReceivedEvent } from './messages.events';
import { findMessageByExternalId, insertMessage } from './messages.repository';
import { messageInputSchema, type MessageInput, type MessageResultItem } from './messages.schema';

type Resolved = { conversationId: string } | { error: string };

/** The conversation a message names, or why it names none (or several). */
async function resolveConversation(
  trx: Trx,
  tenantId: string,
  message: MessageInput,
): Promise<Resolved> {
  const found = await findConversationsByExternalId(
    trx,
    tenantId,
    message.conversation_external_id,
    message.channel,
  );
  const on = message.channel ? ` on channel ${message.channel}` : '';
  if (found.length === 0) {
    return {
      error: `conversation_external_id ${message.conversation_external_id} names no conversation${on}: ingest the conversation first`,
    };
  }
  if (found.length > 1) {
    return {
      error: `conversation_external_id ${message.conversation_external_id} names a conversation on several channels: send channel, one of ${found.map((c) => c.channel).join(', ')}`,
    };
  }
  return { conversationId: found[0].id };
}

/**
 * A batch of messages (messageInputSchema) stored in the caller's tenant transaction: each in
 * the conversation it names, once per external id, with `message.received`, moving the
 * conversation's last message time forward. A message whose conversation is unknown is
 * refused (not stored); a re-sent one is reported with `created: false` and stored nothing.
 */
export async function ingestMessages(
  trx: Trx,
  tenantId: string,
  rows: readonly unknown[],
): Promise<IngestResult<MessageResultItem>> {
  const { valid, errors } = parseRecords(messageInputSchema, rows);
  const refused: RecordError[] = [...errors];
  const data: MessageResultItem[] = [];
  const conversations = new Map<string, Resolved>();
  for (const { index, value } of valid) {
    const key = `${value.channel ?? ''}\u0000${value.conversation_external_id}`;
    let resolved = conversations.get(key);
    if (!resolved) {
      resolved = await resolveConversation(trx, tenantId, value);
      conversations.set(key, resolved);
    }
    if ('error' in resolved) {
      refused.push({ index, error: resolved.error });
      continue;
    }
    const { conversationId } = resolved;
    const sentAt = value.sent_at ?? null;
    const id = await insertMessage(trx, {
      tenantId,
      conversationId,
      externalId: value.external_id,
      direction: value.direction,
      messageType: 'text',
      body: value.body ?? null,
      sentAt,
      payload: { ...value, sent_at: sentAt?.toISOString() ?? null },
    });
    if (id) {
      await touchConversation(trx, conversationId, sentAt);
      await writeEvent(
        trx,
        messageReceivedEvent(tenantId, id, {
          conversation_id: conversationId,
          external_id: value.external_id,
          direction: value.direction,
          sender: value.sender ?? null,
          sent_at: sentAt?.toISOString() ?? null,
        }),
      );
      data.push({
        id,
        external_id: value.external_id,
        conversation_id: conversationId,
        created: true,
      });
      continue;
    }
    const stored = await findMessageByExternalId(trx, tenantId, value.external_id);
    if (!stored || stored.conversationId !== conversationId) {
      refused.push({
        index,
        error: `external_id ${value.external_id} is already the id of a message in another conversation: send another external_id`,
      });
      continue;
    }
    data.push({
      id: stored.id,
      external_id: value.external_id,
      conversation_id: conversationId,
      created: false,
    });
  }
  return ingestResult(data, refused);
}
