/**
 * What an MCP credential (an ingest key or an OAuth grant) may do, one scope per record family
 * and direction, and how each reads on a consent screen or in a key form. Free of imports, so
 * the console shares the same list.
 */
export const MCP_INGEST_SCOPES = [
  'mcp:ingest:leads',
  'mcp:ingest:contacts',
  'mcp:ingest:products',
  'mcp:ingest:messaging',
] as const;

export const MCP_READ_SCOPES = [
  'mcp:read:leads',
  'mcp:read:contacts',
  'mcp:read:products',
  'mcp:read:messaging',
  'mcp:read:deals',
] as const;

export const MCP_SCOPES = [...MCP_INGEST_SCOPES, ...MCP_READ_SCOPES] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export const MCP_SCOPE_DESCRIPTIONS: Record<McpScope, string> = {
  'mcp:ingest:leads': 'Create and update leads',
  'mcp:ingest:contacts': 'Create and update contacts',
  'mcp:ingest:products': 'Create and update products',
  'mcp:ingest:messaging': 'Store chat conversations and messages',
  'mcp:read:leads': 'Search and read leads, with their timelines',
  'mcp:read:contacts': 'Search and read contacts, with their timelines',
  'mcp:read:products': 'Search and read products',
  'mcp:read:messaging': 'Read chat conversations and messages',
  'mcp:read:deals': 'List and read deals',
};

export function isMcpScope(value: string): value is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(value);
}
