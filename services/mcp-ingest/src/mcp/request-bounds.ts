import { headerValue } from '@crm/shared/inbound';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { allowsBatches, requestRevision, unsupportedRevisionHeader } from './protocol-revision';

/** A JSON-RPC error answered before the MCP server sees the request, so nothing runs. */
function refuse(res: Response, status: number, id: unknown, message: string, code = -32600): void {
  res.status(status).json({
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code, message },
  });
}

/** The `records` a message would ingest: those of a `tools/call`, whatever the tool. */
function recordsOf(message: unknown): number {
  if (typeof message !== 'object' || message === null) return 0;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return 0;
  const { arguments: args } = params as { arguments?: unknown };
  if (typeof args !== 'object' || args === null) return 0;
  const { records } = args as { records?: unknown };
  return Array.isArray(records) ? records.length : 0;
}

/**
 * Bounds on the shape of one POST /api/mcp, checked before any tool runs, so a refusal writes
 * nothing (docs/mcp.md):
 * - a request other than an `initialize` names a supported revision in `MCP-Protocol-Version`
 *   when it names one (400, -32000 otherwise, as the SDK's transport answers it): checked first,
 *   so a bogus revision is a 400 whatever the request would have been refused for after (its
 *   records, or the credential's scopes, checked after these bounds);
 * - a JSON-RPC batch only under a revision that allows one, and not empty (400, -32600
 *   otherwise);
 * - at most `maxRecordsPerRequest` records in all, counted over every `tools/call` of the
 *   request, batch or single (413, -32600 otherwise). Without it, one request could carry as
 *   many full calls as a batch holds (100 of 1,000 records each).
 */
export function requestBounds(maxRecordsPerRequest: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const body: unknown = req.body;
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    const header = headerValue(req.headers, 'mcp-protocol-version');
    const unsupported = unsupportedRevisionHeader(messages, header);
    if (unsupported !== undefined) {
      return refuse(
        res,
        400,
        null,
        `Bad Request: Unsupported protocol version: ${unsupported} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        -32000,
      );
    }
    if (batch) {
      const revision = requestRevision(messages, header);
      if (!allowsBatches(revision)) {
        return refuse(
          res,
          400,
          null,
          `Invalid Request: batching is not supported in protocol version ${revision}`,
        );
      }
      // JSON-RPC 2.0 answers an empty batch Invalid Request (the SDK would accept it: 202).
      if (messages.length === 0) return refuse(res, 400, null, 'Invalid Request: an empty batch');
    }
    const records = messages.reduce<number>((sum, message) => sum + recordsOf(message), 0);
    if (records > maxRecordsPerRequest) {
      return refuse(
        res,
        413,
        batch ? null : (body as { id?: unknown } | null)?.id,
        `Invalid Request: ${records} records in this request; at most ${maxRecordsPerRequest} records per request, counted over every tools/call in it. Nothing was written.`,
      );
    }
    next();
  };
}
