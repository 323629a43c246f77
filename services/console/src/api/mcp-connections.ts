import { api, type Envelope } from './client';
import type { NumberedPage } from './products';

/**
 * An app connected to the tenant with OAuth (a grant an owner or admin approved on the consent
 * page), as GET /api/mcp/connections lists it: never a token.
 */
export interface McpConnection {
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_host: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Who approved it. */
  user_id: string | null;
}

export const MCP_CONNECTIONS_KEY = ['mcp-connections'] as const;
/** A tenant connects a few apps: one page of the most the API allows. */
const PAGE_SIZE = 100;

export function fetchMcpConnections(signal?: AbortSignal) {
  return api<Envelope<NumberedPage<McpConnection>>>(`/api/mcp/connections?pageSize=${PAGE_SIZE}`, {
    signal,
  });
}

/** Revokes the grant: the app's tokens are refused from its next request. */
export function revokeMcpConnection(id: string) {
  return api(`/api/mcp/connections/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
