import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Db } from '@crm/shared/db';
import { MCP_SCOPES } from '@crm/shared/mcp-access';
import {
  createTenant,
  eventually,
  grantMcpAccess,
  mcpInitialize,
  postMcp,
  sessionClient,
  tenantRowCounts,
  tenantRows,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service } from '../src/main';

/**
 * mcp-ingest as an OAuth resource server: its protected resource metadata, and POST /api/mcp
 * with an access token the gateway would have issued (rows written as the gateway writes them),
 * beside MCP keys, which work as before.
 */
const PUBLIC_BASE_URL = 'https://crm.example.test';
const RESOURCE = `${PUBLIC_BASE_URL}/api/mcp`;
const METADATA_URL = `${PUBLIC_BASE_URL}/.well-known/oauth-protected-resource/api/mcp`;
const stack = useServiceBehindGateway(service, { PUBLIC_BASE_URL });
let db: Db;

beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const initialize = mcpInitialize('2025-06-18', 'curl');
const mcpPost = (token: string, body: unknown) => postMcp(stack.url, token, body, '2025-06-18');

/** The scopes a `WWW-Authenticate` challenge names, sorted (their order means nothing). */
function challengedScopes(header: string | undefined): string[] {
  const match = / scope="([^"]*)"/.exec(header ?? '');
  return match ? match[1].split(' ').sort() : [];
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

describe('protected resource metadata (RFC 9728)', () => {
  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/mcp',
  ])(
    '%s is public and names the resource, the authorization server and the scopes',
    async (path) => {
      const res = await request(stack.url).get(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        resource: RESOURCE,
        authorization_servers: [PUBLIC_BASE_URL],
        scopes_supported: [...MCP_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
        resource_documentation: expect.stringMatching(/^https:\/\/crm\.example\.test\//),
      });
    },
  );
});

describe('POST /api/mcp with an OAuth access token', () => {
  it("works, and writes land in the grant's tenant whatever tenant_id the payload names", async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const victim = await createTenant(db);
    const { accessToken, grantId } = await grantMcpAccess(db, owner.tenantId, {
      scopes: ['mcp:ingest:leads'],
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    const client = await connect(accessToken);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ingest_leads']);
    const result = (await client.callTool({
      name: 'ingest_leads',
      arguments: {
        tenant_id: victim.id,
        records: [{ email: 'oauth@example.com', tenant_id: victim.id }],
      },
    })) as { structuredContent?: { imported: number }; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.imported).toBe(1);
    expect(await tenantRows(db, 'crm_leads', owner.tenantId)).toEqual([
      expect.objectContaining({ email: 'oauth@example.com' }),
    ]);
    expect(Object.values(await tenantRowCounts(db, victim.id)).every((n) => n === 0)).toBe(true);
    await client.close();
    // Recorded after the answer (at most once a minute per grant), so read until it lands.
    await eventually(async () => {
      const { rows } = await sql<{
        last_used_at: Date | null;
      }>`SELECT last_used_at FROM oauth_grants WHERE id = ${grantId}`.execute(db.db);
      expect(rows[0].last_used_at).not.toBeNull();
    });
  });

  it('401 with resource_metadata for a missing, unknown, expired, revoked or other-resource token', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const scopes = ['mcp:ingest:leads' as const];
    const expired = await grantMcpAccess(db, owner.tenantId, {
      scopes,
      publicBaseUrl: PUBLIC_BASE_URL,
      expiresInSeconds: -1,
    });
    const revoked = await grantMcpAccess(db, owner.tenantId, {
      scopes,
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    await sql`UPDATE oauth_grants SET revoked_at = now() WHERE id = ${revoked.grantId}`.execute(
      db.db,
    );
    const elsewhere = await grantMcpAccess(db, owner.tenantId, {
      scopes,
      resource: 'https://other.example.test/api/mcp',
    });
    const unknown = `crm_oat_${'A'.repeat(43)}`;
    for (const token of [
      expired.accessToken,
      revoked.accessToken,
      elsewhere.accessToken,
      unknown,
    ]) {
      const res = await mcpPost(token, initialize);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain(`resource_metadata="${METADATA_URL}"`);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(res.body).toMatchObject({ success: false, error: 'Unauthorized' });
    }
    const missing = await request(stack.url).post('/api/mcp').send(initialize);
    expect(missing.status).toBe(401);
    // No credential at all: the bare challenge, without an error code (RFC 6750 §3.1).
    expect(missing.headers['www-authenticate']).toBe(
      `Bearer realm="mcp", resource_metadata="${METADATA_URL}"`,
    );
    // The same token, once valid, is accepted: the refusals above are the rows' state.
    const valid = await grantMcpAccess(db, owner.tenantId, {
      scopes,
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    expect((await mcpPost(valid.accessToken, initialize)).status).toBe(200);
  });

  it('a call outside the token scopes: 403 insufficient_scope naming the scope, nothing written', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const { accessToken } = await grantMcpAccess(db, owner.tenantId, {
      scopes: ['mcp:ingest:leads', 'mcp:read:leads'],
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    const before = await tenantRowCounts(db, owner.tenantId);
    const call = (id: number, name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const products = await mcpPost(
      accessToken,
      call(2, 'ingest_products', { records: [{ sku: 'S-1' }] }),
    );
    expect(products.status).toBe(403);
    expect(products.headers['www-authenticate']).toContain('error="insufficient_scope"');
    // The challenge's scope is the union: a client re-authorizes with exactly this set, so the
    // new token keeps the scopes the old one had.
    expect(challengedScopes(products.headers['www-authenticate'])).toEqual([
      'mcp:ingest:leads',
      'mcp:ingest:products',
      'mcp:read:leads',
    ]);
    expect(products.headers['www-authenticate']).toContain(`resource_metadata="${METADATA_URL}"`);
    expect(products.body).toMatchObject({
      success: false,
      code: 'FORBIDDEN',
      message: expect.stringContaining('mcp:ingest:products'),
      details: { scope: 'mcp:ingest:products' },
    });

    // get_record is listed under any read scope; a deal needs mcp:read:deals.
    const deal = await mcpPost(
      accessToken,
      call(3, 'get_record', { type: 'deal', id: '0b6f1a2c-3d4e-4f50-8a9b-1c2d3e4f5a6b' }),
    );
    expect(deal.status).toBe(403);
    expect(challengedScopes(deal.headers['www-authenticate'])).toEqual([
      'mcp:ingest:leads',
      'mcp:read:deals',
      'mcp:read:leads',
    ]);
    expect(deal.body.details).toEqual({ scope: 'mcp:read:deals' });

    // One out-of-scope call in a batch (2025-03-26 allows batches) refuses the whole request.
    const batch = await request(stack.url)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${accessToken}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-03-26')
      .send([
        call(4, 'ingest_leads', { records: [{ email: 'batch@example.com' }] }),
        call(5, 'ingest_contacts', { records: [{ email: 'batch@example.com' }] }),
      ]);
    expect(batch.status).toBe(403);
    expect(challengedScopes(batch.headers['www-authenticate'])).toEqual([
      'mcp:ingest:contacts',
      'mcp:ingest:leads',
      'mcp:read:leads',
    ]);
    expect(batch.body.details).toEqual({ scope: 'mcp:ingest:contacts' });
    expect(await tenantRowCounts(db, owner.tenantId)).toEqual(before);

    // Within its scopes the same token works.
    const leads = await mcpPost(accessToken, call(6, 'search_leads', { limit: 5 }));
    expect(leads.status).toBe(200);
    expect(leads.body.result.structuredContent).toEqual({
      items: [],
      next_cursor: null,
      total: 0,
      total_exact: true,
    });
  });

  it("an access token narrowed at refresh allows its own scopes only, not its grant's", async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const { accessToken } = await grantMcpAccess(db, owner.tenantId, {
      scopes: ['mcp:ingest:leads', 'mcp:read:leads'],
      tokenScopes: ['mcp:read:leads'],
      publicBaseUrl: PUBLIC_BASE_URL,
    });
    const before = await tenantRowCounts(db, owner.tenantId);
    const ingest = await mcpPost(accessToken, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ingest_leads', arguments: { records: [{ email: 'narrow@example.com' }] } },
    });
    expect(ingest.status).toBe(403);
    // The challenge asks for what the token has plus what it lacks (a step-up keeps its scopes).
    expect(ingest.headers['www-authenticate']).toContain('scope="mcp:read:leads mcp:ingest:leads"');
    expect(await tenantRowCounts(db, owner.tenantId)).toEqual(before);
    const search = await mcpPost(accessToken, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'search_leads', arguments: { limit: 5 } },
    });
    expect(search.status).toBe(200);
    expect(search.body.result.structuredContent.total).toBe(0);
  });
});

describe('MCP keys beside tokens', () => {
  it('a key works as before; its 401 names the resource metadata too', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const created = await sessionClient(stack.url, owner.cookie).post('/api/mcp/keys', {
      name: 'agent',
      scopes: ['mcp:ingest:leads'],
    });
    expect(created.status).toBe(201);
    const apiKey = created.body.data.api_key as string;
    expect((await mcpPost(apiKey, initialize)).status).toBe(200);
    const refused = await mcpPost(`crm_mcp_${'B'.repeat(43)}`, initialize);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain(`resource_metadata="${METADATA_URL}"`);
    // Out of a key's scopes: still the tool error (HTTP 200), not a 403.
    const products = await mcpPost(apiKey, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ingest_products', arguments: { records: [{ sku: 'S-1' }] } },
    });
    expect(products.status).toBe(200);
    expect(products.body.result).toMatchObject({ isError: true });
    expect(products.body.result.content[0].text).toContain('mcp:ingest:products');
  });
});
