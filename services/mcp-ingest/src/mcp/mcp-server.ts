import { withTenant, type Database } from '@crm/shared/db';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BearerKey } from '../tenancy/cross-tenant-lookups';
import { INGEST_TOOLS, ingestOutputSchema, toolInputSchema, type IngestTool } from './tools';

const ANNOTATIONS = { idempotentHint: true, destructiveHint: false, openWorldHint: false };

/** A record's own `tenant_id` is never used: writes go to the key's tenant. */
function withoutTenantId(record: unknown): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const { tenant_id: _ignored, ...rest } = record as Record<string, unknown>;
  return rest;
}

/** The tools a key's scopes allow. */
export function toolsFor(key: BearerKey): IngestTool[] {
  return INGEST_TOOLS.filter((tool) => key.scopes.includes(tool.scope));
}

/**
 * One MCP server per request (stateless Streamable HTTP), holding only the tools the key's
 * scopes allow: a tool outside them is neither listed nor callable. Each call runs in one
 * transaction of the key's tenant.
 */
export function mcpServerFor(db: Kysely<Database>, logger: Logger, key: BearerKey): McpServer {
  const server = new McpServer({ name: 'crm-mcp-ingest', version: '1.0.0' });
  for (const tool of toolsFor(key)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: toolInputSchema(tool),
        outputSchema: ingestOutputSchema,
        annotations: { title: tool.title, ...ANNOTATIONS },
      },
      async ({ records }) => {
        try {
          const result = await withTenant(db, key.tenantId, (trx) =>
            tool.ingest(trx, key.tenantId, (records as unknown[]).map(withoutTenantId)),
          );
          const structuredContent = {
            imported: result.imported,
            failed: result.failed,
            errors: result.errors,
            ids: result.data.map((record) => record.id),
          };
          const text = `${tool.name}: ${result.imported} stored, ${result.failed} refused${result.failed > 0 ? ' (see errors)' : ''}`;
          return { content: [{ type: 'text' as const, text }], structuredContent };
        } catch (err) {
          // Never a driver message to the agent; the log has it (without the key).
          logger.error({ err, tool: tool.name, keyId: key.id }, 'MCP tool call failed');
          return {
            content: [
              {
                type: 'text' as const,
                text: `${tool.name}: the records could not be stored; nothing was written. Retry later.`,
              },
            ],
            isError: true,
          };
        }
      },
    );
  }
  return server;
}
