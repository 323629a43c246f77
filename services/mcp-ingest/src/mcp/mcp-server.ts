import { withTenant, type Database } from '@crm/shared/db';
import { AppError } from '@crm/shared/http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { INGEST_TOOLS, ingestOutputSchema, toolInputSchema, type IngestTool } from './ingest-tools';
import type { McpIdentity } from './mcp-identity';
import { READ_TOOLS, ReadRefusal, type ReadTool } from './read-tools';
import { missingScope } from './tool-scopes';

const INGEST_ANNOTATIONS = { idempotentHint: true, destructiveHint: false, openWorldHint: false };
const READ_ANNOTATIONS = { readOnlyHint: true, openWorldHint: false };

/** A record's own `tenant_id` is never used: writes go to the caller's tenant. */
function withoutTenantId(record: unknown): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const { tenant_id: _ignored, ...rest } = record as Record<string, unknown>;
  return rest;
}

const toolError = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  isError: true,
});

/** The ingest tools the caller's scopes allow. */
export function ingestToolsFor(identity: McpIdentity): IngestTool[] {
  return INGEST_TOOLS.filter((tool) => identity.scopes.includes(tool.scope));
}

/** The read tools the caller's scopes list (get_record: any read scope). */
export function readToolsFor(identity: McpIdentity): ReadTool[] {
  return READ_TOOLS.filter((tool) => tool.listedUnder.some((s) => identity.scopes.includes(s)));
}

export interface McpServerOptions {
  /** Signs the read tools' cursors (as crm-api's lists do). */
  cursorSecret: string;
}

function registerIngestTools(
  server: McpServer,
  db: Kysely<Database>,
  logger: Logger,
  identity: McpIdentity,
) {
  for (const tool of ingestToolsFor(identity)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: toolInputSchema(tool),
        outputSchema: ingestOutputSchema,
        annotations: { title: tool.title, ...INGEST_ANNOTATIONS },
      },
      async ({ records }) => {
        try {
          const result = await withTenant(db, identity.tenantId, (trx) =>
            tool.ingest(trx, identity.tenantId, (records as unknown[]).map(withoutTenantId)),
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
          // Never a driver message to the agent; the log has it (without the credential).
          logger.error(
            { err, tool: tool.name, credential: identity.credential, id: identity.id },
            'MCP tool call failed',
          );
          return toolError(
            `${tool.name}: the records could not be stored; nothing was written. Retry later.`,
          );
        }
      },
    );
  }
}

function registerReadTools(
  server: McpServer,
  db: Kysely<Database>,
  logger: Logger,
  identity: McpIdentity,
  options: McpServerOptions,
) {
  for (const tool of readToolsFor(identity)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, ...READ_ANNOTATIONS },
      },
      async (args: Record<string, unknown>) => {
        // get_record is listed under any read scope; each type needs its own.
        const missing = missingScope(tool.name, args, identity.scopes);
        if (missing) {
          return toolError(
            `${tool.name} needs the scope ${missing} for this, which this ${identity.credential === 'key' ? 'key' : 'access token'} does not have.`,
          );
        }
        try {
          const structuredContent = await withTenant(db, identity.tenantId, (trx) =>
            tool.run(
              {
                trx,
                tenantId: identity.tenantId,
                cursorSecret: options.cursorSecret,
                scopes: identity.scopes,
              },
              args,
            ),
          );
          return {
            content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }],
            structuredContent,
          };
        } catch (err) {
          if (err instanceof ReadRefusal) return toolError(`${tool.name}: ${err.message}`);
          // The lists' one refusal of their own: a cursor that is not theirs (altered, another
          // list's or tenant's, or given with other filters). Their REST wording names REST
          // parameters, so the agent gets this one.
          if (err instanceof AppError && err.status < 500) {
            return toolError(
              `${tool.name}: the cursor was refused: it is not a next_cursor this tool returned for these same arguments. Pass the next_cursor of the previous answer unchanged, with the same other arguments, or leave cursor out to read from the first rows.`,
            );
          }
          logger.error(
            { err, tool: tool.name, credential: identity.credential, id: identity.id },
            'MCP tool call failed',
          );
          return toolError(`${tool.name}: the records could not be read. Retry later.`);
        }
      },
    );
  }
}

/**
 * One MCP server per request (stateless Streamable HTTP), holding only the tools the caller's
 * scopes allow: a tool outside them is neither listed nor callable. Each call runs in one
 * transaction of the caller's tenant (the key's, or the OAuth grant's).
 */
export function mcpServerFor(
  db: Kysely<Database>,
  logger: Logger,
  identity: McpIdentity,
  options: McpServerOptions,
): McpServer {
  const server = new McpServer({ name: 'crm-mcp-ingest', version: '1.0.0' });
  registerIngestTools(server, db, logger, identity);
  registerReadTools(server, db, logger, identity, options);
  return server;
}
