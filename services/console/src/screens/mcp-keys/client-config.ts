/**
 * What a new key's owner pastes into an agent: the endpoint and the Authorization header, as
 * a desktop MCP client's JSON configuration (Streamable HTTP) and as a TypeScript program with
 * the official SDK (docs/mcp.md, Connect an agent).
 */
export function mcpEndpoint(origin: string): string {
  return `${origin}/api/mcp`;
}

export function desktopClientConfig(endpoint: string, key: string): string {
  const config = {
    mcpServers: {
      crm: { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${key}` } },
    },
  };
  return JSON.stringify(config, null, 2);
}

export function sdkSnippet(endpoint: string, key: string): string {
  return [
    "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
    "import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';",
    '',
    "const client = new Client({ name: 'my-agent', version: '1.0.0' });",
    `const transport = new StreamableHTTPClientTransport(new URL('${endpoint}'), {`,
    `  requestInit: { headers: { Authorization: 'Bearer ${key}' } },`,
    '});',
    'await client.connect(transport);',
    'console.log((await client.listTools()).tools.map((tool) => tool.name));',
    'await client.close();',
  ].join('\n');
}
