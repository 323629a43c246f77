import { addOperation, idParam, paginated, type OpenAPIRegistry } from '@crm/shared/openapi';
import { z } from 'zod';
import {
  connectionPageQuerySchema,
  connectionRecordSchema,
} from './connections/connections.schema';
import { createKeySchema, keyPageQuerySchema, keyRecordSchema } from './keys/keys.schema';
import { BATCHING_REMOVED_IN } from './mcp/protocol-revision';
import { INGEST_TOOLS, MAX_RECORDS_PER_CALL } from './mcp/ingest-tools';
import { READ_TOOLS } from './mcp/read-tools';
import { protectedResourceMetadata } from './mcp/resource-metadata';

/*
 * mcp-ingest's operations, from the schemas its routes validate with (build-time only: the
 * generator in scripts/openapi imports this; the service never does).
 */

const TAG = 'MCP ingest';
const KEY_EXAMPLE = {
  id: '0b6f1a2c-3d4e-4f50-8a9b-1c2d3e4f5a6b',
  name: 'Sales agent',
  prefix: 'crm_mcp_Xy12ab',
  scopes: ['mcp:ingest:leads'],
  created_at: '2026-11-24T10:00:00.000Z',
  created_by: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  expires_at: null,
  last_used_at: null,
  revoked_at: null,
};

const CONNECTION_EXAMPLE = {
  id: '5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
  client_id: 'mcpc_4Jx0aQ9rT2',
  client_name: 'Desktop agent',
  redirect_host: '127.0.0.1',
  scopes: ['mcp:read:leads', 'mcp:read:contacts'],
  created_at: '2026-11-24T10:00:00.000Z',
  last_used_at: '2026-11-24T10:05:00.000Z',
  revoked_at: null,
  user_id: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
};

const resourceMetadataSchema = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string(),
    resource_documentation: z.string(),
  })
  .openapi('ProtectedResourceMetadata');

/** A JSON-RPC 2.0 message of MCP's Streamable HTTP transport (the SDK validates the rest). */
const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('JsonRpcRequest');

export function registerOperations(registry: OpenAPIRegistry): void {
  addOperation(registry, {
    method: 'get',
    path: '/api/mcp/keys',
    tag: TAG,
    summary: "List the tenant's MCP ingest keys (never a secret or hash)",
    auth: 'session',
    query: keyPageQuerySchema,
    success: {
      description: 'One page of keys',
      data: paginated(keyRecordSchema),
      example: {
        success: true,
        data: { items: [KEY_EXAMPLE], total: 1, page: 1, pageSize: 20, totalPages: 1 },
        message: 'OK',
      },
    },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/mcp/keys',
    tag: TAG,
    summary: 'Create an MCP ingest key (owners and admins; the key is shown this once)',
    auth: 'session',
    body: {
      schema: createKeySchema,
      example: { name: 'Sales agent', scopes: ['mcp:ingest:leads', 'mcp:ingest:contacts'] },
    },
    success: {
      status: 201,
      description: 'Created: copy api_key now',
      data: z.object({ key: keyRecordSchema, api_key: z.string() }),
      example: {
        success: true,
        data: { key: KEY_EXAMPLE, api_key: `crm_mcp_Xy12ab${'x'.repeat(37)}` },
        message: 'Key created: copy api_key now, it is not shown again',
      },
    },
    errors: [400],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/mcp/keys/{id}',
    tag: TAG,
    summary: 'Revoke a key (it stops working at once)',
    auth: 'session',
    params: idParam(),
    success: { description: 'Revoked', data: z.object({ key: keyRecordSchema }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/mcp/connections',
    tag: TAG,
    summary:
      "List the tenant's OAuth connections: the MCP clients users approved (owners and admins; never a token)",
    auth: 'session',
    query: connectionPageQuerySchema,
    success: {
      description: 'One page of connections (OAuth grants), revoked ones included',
      data: paginated(connectionRecordSchema),
      example: {
        success: true,
        data: { items: [CONNECTION_EXAMPLE], total: 1, page: 1, pageSize: 20, totalPages: 1 },
        message: 'OK',
      },
    },
    errors: [400],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/mcp/connections/{id}',
    tag: TAG,
    summary: 'Revoke a connection (owners and admins): its tokens stop working at once',
    auth: 'session',
    params: idParam(),
    success: {
      description: 'Revoked',
      data: z.object({ connection: connectionRecordSchema }),
      example: {
        success: true,
        data: { connection: { ...CONNECTION_EXAMPLE, revoked_at: '2026-11-25T09:00:00.000Z' } },
        message: 'Connection revoked',
      },
    },
    errors: [404],
  });
  for (const path of [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/mcp',
  ]) {
    addOperation(registry, {
      method: 'get',
      path,
      tag: TAG,
      summary: "The MCP server's protected resource metadata (RFC 9728)",
      description:
        'Where an MCP client that got a 401 from `/api/mcp` finds the authorization server ' +
        '(`authorization_servers`) and the scopes to ask for. Both paths answer the same document.',
      auth: 'public',
      success: {
        description: 'The metadata',
        bare: resourceMetadataSchema,
        example: protectedResourceMetadata('https://crm.example.com'),
      },
    });
  }
  addOperation(registry, {
    method: 'post',
    path: '/api/mcp',
    tag: TAG,
    summary: 'MCP over Streamable HTTP (stateless) for AI agents',
    description:
      `JSON-RPC 2.0 per the Model Context Protocol: \`initialize\`, \`tools/list\`, \`tools/call\`. ` +
      'Authenticated by an MCP key or an OAuth access token (`Authorization: Bearer`); a 401 ' +
      'carries `WWW-Authenticate: Bearer resource_metadata="…"`. ' +
      `Ingest tools (each needs its scope): ${INGEST_TOOLS.map((t) => `\`${t.name}\` (${t.scope})`).join(', ')}; ` +
      `each takes \`{ records }\` (1 to ${MAX_RECORDS_PER_CALL}) and answers structuredContent ` +
      '`{ imported, failed, errors, ids }`. ' +
      `Read tools (read-only): ${READ_TOOLS.map((t) => `\`${t.name}\``).join(', ')}, each under its ` +
      '`mcp:read:*` scope. A call outside the scopes: a tool error for a key, 403 ' +
      '`insufficient_scope` for an access token (`WWW-Authenticate` scope: the token scopes and ' +
      'the missing ones, what to re-authorize with). A request other than `initialize` naming an ' +
      'unsupported `MCP-Protocol-Version` is refused first (400, -32000). A JSON-RPC batch is refused (400, -32600) under ' +
      `protocol ${BATCHING_REMOVED_IN} and later (\`MCP-Protocol-Version\`; without it 2025-03-26, ` +
      'which allows batches). The records of every `tools/call` in one request may sum to at most ' +
      '`MCP_MAX_RECORDS_PER_REQUEST` (1,000 by default); over it: 413 with a JSON-RPC error, nothing ' +
      'written. Send `Accept: application/json, text/event-stream`. Connect with an MCP client ' +
      'rather than by hand (docs/mcp.md).',
    auth: 'mcpBearer',
    body: {
      schema: jsonRpcMessage,
      example: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    },
    success: {
      description: 'The JSON-RPC response',
      bare: z.record(z.string(), z.unknown()),
      example: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'ingest_leads' }] } },
    },
    errors: [400, 403, 413],
  });
  for (const method of ['get', 'delete'] as const) {
    addOperation(registry, {
      method,
      path: '/api/mcp',
      tag: TAG,
      summary: 'Not offered in stateless mode: 405',
      auth: 'mcpBearer',
      success: {
        status: 405,
        description: 'Method not allowed (no session or stream is kept)',
        bare: z.record(z.string(), z.unknown()),
        example: {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed.' },
          id: null,
        },
      },
    });
  }
}
