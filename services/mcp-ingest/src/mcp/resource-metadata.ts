import { MCP_PATH, MCP_SCOPES, mcpResourceUrl } from '@crm/shared/mcp-access';
import { Router } from 'express';

/** Where RFC 9728 puts the metadata of a resource at a path: the well-known path, then the path. */
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The URL a 401 points clients at (`resource_metadata` in WWW-Authenticate). */
export function resourceMetadataUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${WELL_KNOWN}${MCP_PATH}`;
}

/** The MCP server's protected resource metadata (RFC 9728). */
export function protectedResourceMetadata(publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    resource: mcpResourceUrl(base),
    authorization_servers: [base],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'CRM MCP server',
    resource_documentation: `${base}/api-docs#/MCP%20ingest`,
  };
}

/**
 * GET /.well-known/oauth-protected-resource and its /api/mcp form (public): how an MCP client
 * that got a 401 finds the authorization server and the scopes to ask for. Both paths answer
 * the same document: clients try the path-suffixed one first, older ones the bare one.
 */
export function resourceMetadataRoutes(publicBaseUrl: string): Router {
  const router = Router();
  const document = protectedResourceMetadata(publicBaseUrl);
  router.get([WELL_KNOWN, `${WELL_KNOWN}${MCP_PATH}`], (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').json(document);
  });
  return router;
}
