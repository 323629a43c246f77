import type { Database } from '@crm/shared/db';
import { jsonBody, requestLogger } from '@crm/shared/http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BearerKey } from '../tenancy/cross-tenant-lookups';
import { bearerAuth } from './bearer-auth';
import { mcpServerFor } from './mcp-server';
import { requestBounds } from './request-bounds';
import { INGEST_TOOLS } from './tools';

export const MCP_PATH = '/api/mcp';

/**
 * A `tools/call` of a known tool the key's scopes do not allow: answered here, as a tool error
 * naming the missing scope (the agent can tell its operator what to grant), without reaching
 * the MCP server, which does not hold the tool at all.
 */
function outOfScopeCall(body: unknown, key: BearerKey) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as {
    jsonrpc?: unknown;
    id?: unknown;
    method?: unknown;
    params?: { name?: unknown };
  };
  if (message.method !== 'tools/call' || message.id === undefined) return undefined;
  const tool = INGEST_TOOLS.find((t) => t.name === message.params?.name);
  if (!tool || key.scopes.includes(tool.scope)) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    result: {
      content: [
        {
          type: 'text',
          text: `${tool.name} needs the scope ${tool.scope}, which this key does not have; nothing was written.`,
        },
      ],
      isError: true,
    },
  };
}

/** Stateless mode keeps no stream or session open: GET and DELETE are not offered (405). */
function methodNotAllowed(_req: Request, res: Response): void {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
}

export interface McpLimits {
  bodyLimitBytes: number;
  /** Records in all tools/call of one request, batch or single. */
  maxRecordsPerRequest: number;
}

/**
 * POST /api/mcp: MCP over Streamable HTTP (stateless) for AI agents, authenticated by an MCP
 * ingest key before any MCP processing, then bounded in shape (batches, records) before any
 * tool runs (docs/mcp.md).
 */
export function mcpRoutes(db: Kysely<Database>, logger: Logger, limits: McpLimits): Router {
  const router = Router();
  const auth = bearerAuth(db, logger);
  const parse = jsonBody(limits.bodyLimitBytes);
  const bounds = requestBounds(limits.maxRecordsPerRequest);
  router.post(MCP_PATH, auth, parse, bounds, async (req: Request, res: Response) => {
    const key = req.mcpKey as BearerKey;
    const refusal = outOfScopeCall(req.body, key);
    if (refusal) {
      res.json(refusal);
      return;
    }
    const server = mcpServerFor(db, requestLogger(logger, req), key);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  router.get(MCP_PATH, auth, methodNotAllowed);
  router.delete(MCP_PATH, auth, methodNotAllowed);
  return router;
}
