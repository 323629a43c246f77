import type { Trx } from '@crm/shared/db';
import { parseRecords } from '../fields';
import { ingestResult, type IngestResult } from '../ingest-result';
import { upsertConversation } from './conversations.repository';
import { conversationInputSchema, type ConversationResultItem } from './conversations.schema';

/**
 * A batch of conversations (conversationInputSchema) stored in the caller's tenant
 * transaction, each upserted by (channel, external id), new ones with `conversation.created`;
 * refused records come back as `{ index, error }`.
 */
export async function ingestConversations(
  trx: Trx,
  tenantId: string,
  rows: readonly unknown[],
): Promise<IngestResult<ConversationResultItem>> {
  const { valid, errors } = parseRecords(conversationInputSchema, rows);
  const data: ConversationResultItem[] = [];
  for (const { value } of valid) {
    const { conversation, created } = await upsertConversation(trx, tenantId, value);
    data.push({
      id: conversation.id,
      external_id: conversation.external_id,
      channel: conversation.channel,
      contact_id: conversation.contact_id,
      created,
    });
  }
  return ingestResult(data, errors);
}
