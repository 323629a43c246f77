/**
 * Who calls POST /api/mcp, whichever credential it sent: an MCP key (created at
 * /api/mcp/keys) or an OAuth access token (issued by the gateway's authorization server under a
 * grant). The MCP server and its tools see only this: the tenant every read and write runs in,
 * and the scopes that decide which tools exist for the caller.
 */
export interface McpIdentity {
  tenantId: string;
  scopes: string[];
  credential: 'key' | 'oauth';
  /** The key's id, or the grant's (never the secret). */
  id: string;
}
