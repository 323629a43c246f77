import { MCP_SCOPES } from '@crm/shared/mcp-access';
import { Router, type RequestHandler } from 'express';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The authorization server's metadata (RFC 8414): where its endpoints are and what it supports. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/api/oauth/authorize`,
    token_endpoint: `${issuer}/api/oauth/token`,
    registration_endpoint: `${issuer}/api/oauth/register`,
    revocation_endpoint: `${issuer}/api/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...MCP_SCOPES],
    client_id_metadata_document_supported: true,
    // Every authorization response (code or error) carries `iss` (RFC 9207).
    authorization_response_iss_parameter_supported: true,
  };
}

/** `GET /.well-known/oauth-authorization-server`: public, behind the per-IP limit. */
export function authorizationServerMetadataRoutes(
  issuer: string,
  rateLimit: RequestHandler,
): Router {
  const metadata = authorizationServerMetadata(issuer);
  return Router().get(AUTHORIZATION_SERVER_METADATA_PATH, rateLimit, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').json(metadata);
  });
}
