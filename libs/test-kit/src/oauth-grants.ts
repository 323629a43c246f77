import { randomUUID } from 'node:crypto';
import { withSystemScope, type Db } from '@crm/shared/db';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  mcpResourceUrl,
  newOAuthSecret,
  type McpScope,
} from '@crm/shared/mcp-access';

export interface McpGrantOptions {
  scopes: McpScope[];
  /** The access token's own scopes (a refresh may ask for fewer than the grant's); default `scopes`. */
  tokenScopes?: McpScope[];
  /** The resource the grant is bound to; default the MCP server of `publicBaseUrl`. */
  resource?: string;
  /** The gateway's PUBLIC_BASE_URL the resource is built from (default its default). */
  publicBaseUrl?: string;
  /** Seconds until the access token expires; negative: already expired. */
  expiresInSeconds?: number;
  userId?: string | null;
  clientName?: string;
}

export interface McpGrant {
  grantId: string;
  clientId: string;
  /** The access token, `crm_oat_…`: only its hash is stored, as the gateway stores it. */
  accessToken: string;
}

/**
 * What the gateway's authorization server leaves behind when a user approves an MCP client for
 * a tenant: a registered client, a grant of the tenant and an access token under it (its
 * SHA-256 only). For the resource server's tests, which need tokens without running the flow.
 */
export async function grantMcpAccess(
  db: Db,
  tenantId: string,
  options: McpGrantOptions,
): Promise<McpGrant> {
  const clientId = `test-client-${randomUUID()}`;
  const token = newOAuthSecret('access');
  const resource =
    options.resource ?? mcpResourceUrl(options.publicBaseUrl ?? 'http://localhost:8080');
  const expiresIn = options.expiresInSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
  const grantId = await withSystemScope(db.db, async (trx) => {
    await trx
      .insertInto('oauth_clients')
      .values({
        client_id: clientId,
        client_name: options.clientName ?? 'Test agent',
        redirect_uris: ['http://127.0.0.1:33418/callback'],
        source: 'registration',
      })
      .execute();
    const grant = await trx
      .insertInto('oauth_grants')
      .values({
        tenant_id: tenantId,
        client_id: clientId,
        client_name: options.clientName ?? 'Test agent',
        redirect_host: '127.0.0.1',
        user_id: options.userId ?? null,
        scopes: options.scopes,
        resource,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('oauth_tokens')
      .values({
        token_hash: token.hash,
        grant_id: grant.id,
        kind: 'access',
        scopes: options.tokenScopes ?? options.scopes,
        expires_at: new Date(Date.now() + expiresIn * 1000),
      })
      .execute();
    return grant.id;
  });
  return { grantId, clientId, accessToken: token.secret };
}
