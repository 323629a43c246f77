import type { Database } from '@crm/shared/db';
import { requestLogger } from '@crm/shared/http';
import { headerValue } from '@crm/shared/inbound';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { hashKey, looksLikeKey } from '../keys/api-key';
import { findKeyByHash, touchKey, type BearerKey } from '../tenancy/cross-tenant-lookups';

declare module 'http' {
  interface IncomingMessage {
    /** Set by bearerAuth(): the MCP key the request authenticated with. */
    mcpKey?: BearerKey;
  }
}

const TOUCH_EVERY_MS = 60_000;

/** 401 with `WWW-Authenticate: Bearer` (RFC 6750) and a JSON body, before any MCP processing. */
function refuse(res: Response, error: 'invalid_request' | 'invalid_token', description: string) {
  res
    .status(401)
    .set(
      'WWW-Authenticate',
      `Bearer realm="mcp", error="${error}", error_description="${description}"`,
    )
    .json({
      success: false,
      error: 'Unauthorized',
      code: 'UNAUTHORIZED',
      message: description,
      details: null,
    });
}

/**
 * `Authorization: Bearer <key>`: the key is looked up by its hash (the one named cross-tenant
 * lookup), and must be neither revoked nor expired. Missing, malformed, unknown, revoked and
 * expired keys are refused alike (401); the key itself never reaches a log line. `last_used_at`
 * is written at most once a minute per key.
 */
export function bearerAuth(db: Kysely<Database>, logger: Logger): RequestHandler {
  const touched = new Map<string, number>();
  return (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      const header = headerValue(req.headers, 'authorization');
      const match = header === undefined ? null : /^Bearer ([^\s]+)$/i.exec(header);
      if (!match)
        return refuse(res, 'invalid_request', 'Send Authorization: Bearer <MCP ingest key>');
      const key = looksLikeKey(match[1]) ? await findKeyByHash(db, hashKey(match[1])) : undefined;
      const now = Date.now();
      if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now)) {
        return refuse(res, 'invalid_token', 'The key is unknown, revoked or expired');
      }
      req.mcpKey = key;
      if (now - (touched.get(key.id) ?? 0) >= TOUCH_EVERY_MS) {
        touched.set(key.id, now);
        touchKey(db, key.id).catch((err: unknown) =>
          requestLogger(logger, req).warn({ err, keyId: key.id }, 'could not record key use'),
        );
      }
      next();
    })().catch(next);
  };
}
