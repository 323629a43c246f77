import { api, type Envelope } from './client';
import type { NumberedPage } from './products';

/** A key as the API shows it: never the secret or its hash. */
export interface McpKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  created_by: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const MCP_KEYS_KEY = ['mcp-keys'] as const;
/** The list is short (a tenant holds a few keys): one page of the most it allows. */
const PAGE_SIZE = 100;

export function fetchMcpKeys(signal?: AbortSignal) {
  return api<Envelope<NumberedPage<McpKey>>>(`/api/mcp/keys?pageSize=${PAGE_SIZE}`, { signal });
}

export function createMcpKey(body: { name: string; scopes: string[]; expires_at: string | null }) {
  return api<Envelope<{ key: McpKey; api_key: string }>>('/api/mcp/keys', {
    method: 'POST',
    body,
  });
}

export function revokeMcpKey(id: string) {
  return api<Envelope<{ key: McpKey }>>(`/api/mcp/keys/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  });
}
