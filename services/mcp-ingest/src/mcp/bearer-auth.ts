import type { Database } from '@crm/shared/db';
import { requestLogger } from '@crm/shared/http';
import { headerValue } from '@crm/shared/inbound';
import { hashOAuthSecret, looksLikeOAuthSecret, mcpResourceUrl } from '@crm/shared/mcp-access';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { hashKey, looksLikeKey } from '../keys/api-key';
import {
  findGrantByAccessTokenHash,
  findKeyByHash,
  touchGrant,
  touchKey,
} from '../tenancy/cross-tenant-lookups';
import { CredentialUseThrottle } from './credential-use-throttle';
import type { McpIdentity } from './mcp-identity';
import { resourceMetadataUrl } from './resource-metadata';

declare module 'http' {
  interface IncomingMessage {
    /** Set by bearerAuth(): who the request authenticated as (a key or an OAuth grant). */
    mcpIdentity?: McpIdentity;
  }
}

const TOUCH_EVERY_MS = 60_000;
/** Credentials whose last use one process remembers before it forgets the stale ones. */
const TOUCH_MEMORY = 5_000;

/**
 * 401 with `WWW-Authenticate: Bearer` (RFC 6750) naming the protected resource metadata
 * (RFC 9728, so an MCP client can start the OAuth flow from it) and a JSON body, before any MCP
 * processing. `error` is left out for a request without a bearer credential at all (RFC 6750
 * §3.1: no error code when the request lacks authentication information, or used another
 * scheme): it is not an error yet, only the challenge to authenticate.
 */
function refuse(
  res: Response,
  metadataUrl: string,
  error: 'invalid_request' | 'invalid_token' | undefined,
  description: string,
) {
  const challenge = `Bearer realm="mcp", resource_metadata="${metadataUrl}"`;
  res
    .status(401)
    .set(
      'WWW-Authenticate',
      error ? `${challenge}, error="${error}", error_description="${description}"` : challenge,
    )
    .json({
      success: false,
      error: 'Unauthorized',
      code: 'UNAUTHORIZED',
      message: description,
      details: null,
    });
}

/** The identity `secret` stands for, or undefined: an MCP key or an OAuth access token. */
async function identify(
  db: Kysely<Database>,
  secret: string,
  resource: string,
): Promise<McpIdentity | undefined> {
  if (looksLikeKey(secret)) {
    const key = await findKeyByHash(db, hashKey(secret));
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) {
      return undefined;
    }
    return { tenantId: key.tenantId, scopes: key.scopes, credential: 'key', id: key.id };
  }
  if (looksLikeOAuthSecret('access', secret)) {
    const grant = await findGrantByAccessTokenHash(db, hashOAuthSecret(secret), resource);
    if (!grant) return undefined;
    return { tenantId: grant.tenantId, scopes: grant.scopes, credential: 'oauth', id: grant.id };
  }
  return undefined;
}

/**
 * `Authorization: Bearer <credential>`: an MCP key (looked up by its hash; neither revoked nor
 * expired) or an OAuth access token (by its hash; not expired, its grant not revoked and issued
 * for this MCP server's URL, so a token meant for another resource is refused). Missing,
 * malformed, unknown, revoked and expired credentials are refused alike (401); the secret never
 * reaches a log line. `last_used_at` of the key or grant is written at most once a minute.
 */
export function bearerAuth(
  db: Kysely<Database>,
  logger: Logger,
  publicBaseUrl: string,
): RequestHandler {
  const touched = new CredentialUseThrottle(TOUCH_EVERY_MS, TOUCH_MEMORY);
  const resource = mcpResourceUrl(publicBaseUrl);
  const metadataUrl = resourceMetadataUrl(publicBaseUrl);
  return (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      const header = headerValue(req.headers, 'authorization');
      const match = header === undefined ? null : /^Bearer ([^\s]+)$/i.exec(header);
      if (!match) {
        return refuse(
          res,
          metadataUrl,
          // A Bearer header of another shape is malformed; no Bearer header is no credential.
          /^Bearer(\s|$)/i.test(header ?? '') ? 'invalid_request' : undefined,
          'Send Authorization: Bearer <MCP key or OAuth access token>',
        );
      }
      const identity = await identify(db, match[1], resource);
      if (!identity) {
        return refuse(
          res,
          metadataUrl,
          'invalid_token',
          'The key or access token is unknown, revoked or expired',
        );
      }
      req.mcpIdentity = identity;
      if (touched.due(`${identity.credential}:${identity.id}`, Date.now())) {
        const touch = identity.credential === 'key' ? touchKey : touchGrant;
        touch(db, identity.id).catch((err: unknown) =>
          requestLogger(logger, req).warn(
            { err, credential: identity.credential, id: identity.id },
            'could not record MCP credential use',
          ),
        );
      }
      next();
    })().catch(next);
  };
}
