import request from 'supertest';

/** An MCP `initialize` request (JSON-RPC id 1) asking for `protocolVersion`. */
export function mcpInitialize(protocolVersion = '2025-06-18', clientName = 'test-client') {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: clientName, version: '1' } },
  };
}

/**
 * POST /api/mcp of the stack at `baseUrl` as a raw HTTP client: `credential` as the bearer (an
 * MCP key or an OAuth access token), the Accept header the transport requires, and the
 * negotiated revision's header when one is given (none: as an initialize sends it).
 */
export function postMcp(baseUrl: string, credential: string, body: unknown, revision?: string) {
  const req = request(baseUrl)
    .post('/api/mcp')
    .set('Authorization', `Bearer ${credential}`)
    .set('Accept', 'application/json, text/event-stream')
    .set('Content-Type', 'application/json');
  return (revision ? req.set('MCP-Protocol-Version', revision) : req).send(JSON.stringify(body));
}
