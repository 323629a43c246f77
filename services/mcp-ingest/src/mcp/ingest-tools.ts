import type { Trx } from '@crm/shared/db';
import {
  contactInputSchema,
  conversationInputSchema,
  ingestContacts,
  ingestConversations,
  ingestLeads,
  ingestMessages,
  ingestProducts,
  leadImportItemSchema,
  messageInputSchema,
  productInputSchema,
  type IngestResult,
} from '@crm/records';
import { z } from 'zod';
import type { McpScope } from '../keys/keys.schema';

/** Most records one tool call may carry (documented in docs/mcp.md). */
export const MAX_RECORDS_PER_CALL = 1000;

export interface IngestTool {
  name: string;
  scope: McpScope;
  title: string;
  description: string;
  /** The record type's own schema (libs/records): shown to agents as JSON Schema. */
  recordSchema: z.ZodType;
  ingest(trx: Trx, tenantId: string, records: unknown[]): Promise<IngestResult<{ id: string }>>;
}

const LIMITS = `1 to ${MAX_RECORDS_PER_CALL} records per call. A record that fails validation is reported in errors by its index (naming what would have been valid) while the others are stored; re-sending a record updates it, never duplicates it. Writes go to the key's own tenant (a tenant_id in the arguments is ignored).`;

export const INGEST_TOOLS: readonly IngestTool[] = [
  {
    name: 'ingest_leads',
    scope: 'mcp:ingest:leads',
    title: 'Ingest leads',
    description: `Creates or updates leads, matched by email (case-insensitive), with the rules of the REST lead import: email required; status defaults to new; lead_source or source is normalised (default api_import); company and unknown keys go to custom_fields. Emits lead.created / lead.updated. ${LIMITS}`,
    recordSchema: leadImportItemSchema,
    ingest: (trx, tenantId, records) => ingestLeads(trx, tenantId, records),
  },
  {
    name: 'ingest_contacts',
    scope: 'mcp:ingest:contacts',
    title: 'Ingest contacts',
    description: `Creates or updates contacts, matched by external_id, else by email (case-insensitive): email and/or phone required; first_name, last_name, company, title, custom_fields. Emits contact.created / contact.updated. ${LIMITS}`,
    recordSchema: contactInputSchema,
    ingest: (trx, tenantId, records) => ingestContacts(trx, tenantId, records, { source: 'mcp' }),
  },
  {
    name: 'ingest_products',
    scope: 'mcp:ingest:products',
    title: 'Ingest products',
    description: `Creates or updates products, matched by sku (required): name, description, price (a decimal >= 0, kept exactly), currency (ISO 4217, e.g. EUR), active. Emits product.created / product.updated. ${LIMITS}`,
    recordSchema: productInputSchema,
    ingest: (trx, tenantId, records) => ingestProducts(trx, tenantId, records),
  },
  {
    name: 'ingest_chat_conversations',
    scope: 'mcp:ingest:messaging',
    title: 'Ingest chat conversations',
    description: `Creates or updates chat conversations, matched by (channel, external_id): external_id required; channel, contact_email / contact_phone (linked to a contact when one matches), subject, status, started_at. Emits conversation.created. Ingest conversations before their messages. ${LIMITS}`,
    recordSchema: conversationInputSchema,
    ingest: (trx, tenantId, records) => ingestConversations(trx, tenantId, records),
  },
  {
    name: 'ingest_chat_messages',
    scope: 'mcp:ingest:messaging',
    title: 'Ingest chat messages',
    description: `Stores chat messages of known conversations: conversation_external_id and external_id required; direction inbound or outbound, body, sender, sent_at. A message for a conversation not ingested yet is reported in errors, not stored; a re-sent message is not stored twice. Emits message.received. ${LIMITS}`,
    recordSchema: messageInputSchema,
    ingest: (trx, tenantId, records) => ingestMessages(trx, tenantId, records),
  },
];

/** Every tool answers this, beside a one-line text summary. */
export const ingestOutputSchema = z.object({
  imported: z.number().int().describe('Records stored (created or updated)'),
  failed: z.number().int().describe('Records refused; each is listed in errors'),
  errors: z
    .array(
      z.object({
        index: z.number().int().describe('Zero-based position in records'),
        error: z.string().describe('What was wrong and what would have been valid'),
      }),
    )
    .describe('The refused records'),
  ids: z.array(z.string()).describe('Ids of the stored records, in the order they were sent'),
});

/**
 * The arguments: `records`, each validated by the record type's own rules one by one (so one
 * bad record does not refuse the call), and shown to agents with that record schema. Other
 * keys, such as a tenant_id, are accepted and ignored.
 */
export function toolInputSchema(tool: IngestTool) {
  const { $schema: _ignored, ...itemSchema } = z.toJSONSchema(tool.recordSchema, {
    io: 'input',
    unrepresentable: 'any',
  });
  return z.looseObject({
    records: z
      .array(z.unknown())
      .min(1)
      .max(MAX_RECORDS_PER_CALL)
      .meta({
        description: `The records to store, 1 to ${MAX_RECORDS_PER_CALL}`,
        items: itemSchema,
      }),
  });
}
