/** Where agents reach the MCP server, behind the gateway. */
export const MCP_PATH = '/api/mcp';

/** An access token's lifetime: short, so a leaked one is worth little (refresh tokens rotate). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * The MCP server's resource identifier (RFC 8707, RFC 9728): its public URL. An access token is
 * bound to it at issue, and mcp-ingest accepts only tokens bound to it.
 */
export function mcpResourceUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${MCP_PATH}`;
}
