export {
  MCP_INGEST_SCOPES,
  MCP_READ_SCOPES,
  MCP_SCOPES,
  MCP_SCOPE_DESCRIPTIONS,
  isMcpScope,
  type McpScope,
} from './scopes';
export {
  OAUTH_SECRET_PREFIXES,
  newOAuthSecret,
  hashOAuthSecret,
  looksLikeOAuthSecret,
  type OAuthSecretKind,
  type NewOAuthSecret,
} from './oauth-secrets';
export { MCP_PATH, ACCESS_TOKEN_TTL_SECONDS, mcpResourceUrl } from './mcp-resource';
