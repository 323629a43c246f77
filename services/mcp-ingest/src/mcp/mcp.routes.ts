import type { Database } from '@crm/shared/db';
import { jsonBody, requestLogger } from '@crm/shared/http';
import { MCP_PATH } from '@crm/shared/mcp-access';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { bearerAuth } from './bearer-auth';
import type { McpIdentity } from './mcp-identity';
import { mcpServerFor } from './mcp-server';
import { requestBounds } from './request-bounds';
import { resourceMetadataUrl } from './resource-metadata';
import { missingScope, toolCallOf } from './tool-scopes';

export { MCP_PATH };

/**
 * A key's `tools/call` of a known tool its scopes do not allow: answered here, as a tool error
 * naming the missing scope (the agent can tell its operator what to grant), without reaching
 * the MCP server, which does not hold the tool at all.
 */
function keyOutOfScopeCall(body: unknown, identity: McpIdentity) {
  const call = toolCallOf(body);
  if (!call || call.id === undefined) return undefined;
  const missing = missingScope(call.name, call.args, identity.scopes);
  if (!missing) return undefined;
  return {
    jsonrpc: '2.0',
    id: call.id,
    result: {
      content: [
        {
          type: 'text',
          text: `${String(call.name)} needs the scope ${missing}, which this key does not have${String(call.name).startsWith('ingest_') ? '; nothing was written' : ''}.`,
        },
      ],
      isError: true,
    },
  };
}

/**
 * The scopes an OAuth token lacks for the request's `tools/call` (a batch's included), in call
 * order: the token's holder can ask the user for them (step-up), so it is an HTTP answer (403
 * insufficient_scope, RFC 6750), not a tool error.
 */
function tokenMissingScopes(body: unknown, identity: McpIdentity): string[] {
  const missing: string[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = toolCallOf(message);
    const scope = call && missingScope(call.name, call.args, identity.scopes);
    if (scope && !missing.includes(scope)) missing.push(scope);
  }
  return missing;
}

/**
 * The step-up challenge's `scope`: the token's scopes and the missing ones. A client (the
 * official SDK's does) asks for exactly the challenged set when it re-authorizes, so naming
 * only the missing scope would cost the new token every scope the old one had (the MCP
 * authorization specification's scope challenge guidance).
 */
function challengeScopes(identity: McpIdentity, missing: readonly string[]): string {
  return [...new Set([...identity.scopes, ...missing])].join(' ');
}

/** Stateless mode keeps no stream or session open: GET and DELETE are not offered (405). */
function methodNotAllowed(_req: Request, res: Response): void {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
}

export interface McpOptions {
  bodyLimitBytes: number;
  /** Records in all tools/call of one request, batch or single. */
  maxRecordsPerRequest: number;
  /** The gateway's public address: the MCP resource's identifier and its metadata's URL. */
  publicBaseUrl: string;
  /** Signs the read tools' cursors. */
  cursorSecret: string;
}

/**
 * POST /api/mcp: MCP over Streamable HTTP (stateless) for AI agents, authenticated by an MCP
 * key or an OAuth access token before any MCP processing, then bounded in shape (batches,
 * records) and checked against the credential's scopes before any tool runs (docs/mcp.md).
 */
export function mcpRoutes(db: Kysely<Database>, logger: Logger, options: McpOptions): Router {
  const router = Router();
  const auth = bearerAuth(db, logger, options.publicBaseUrl);
  const parse = jsonBody(options.bodyLimitBytes);
  const bounds = requestBounds(options.maxRecordsPerRequest);
  const metadataUrl = resourceMetadataUrl(options.publicBaseUrl);
  router.post(MCP_PATH, auth, parse, bounds, async (req: Request, res: Response) => {
    const identity = req.mcpIdentity as McpIdentity;
    if (identity.credential === 'oauth') {
      const missing = tokenMissingScopes(req.body, identity);
      if (missing.length > 0) {
        const named = missing.join(' and ');
        const message = `This call needs the scope${missing.length > 1 ? 's' : ''} ${named}, which this access token does not have; nothing was written.`;
        res
          .status(403)
          .set(
            'WWW-Authenticate',
            `Bearer error="insufficient_scope", scope="${challengeScopes(identity, missing)}", resource_metadata="${metadataUrl}", error_description="${message}"`,
          )
          .json({
            success: false,
            error: 'Forbidden',
            code: 'FORBIDDEN',
            message,
            details: { scope: missing.join(' ') },
          });
        return;
      }
    } else {
      const refusal = keyOutOfScopeCall(req.body, identity);
      if (refusal) {
        res.json(refusal);
        return;
      }
    }
    const server = mcpServerFor(db, requestLogger(logger, req), identity, {
      cursorSecret: options.cursorSecret,
    });
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
