import type { Db } from '@crm/shared/db';
import {
  grantMcpAccess,
  mcpInitialize,
  postMcp,
  sessionClient,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { service } from '../src/main';

/**
 * /api/mcp/connections: the OAuth grants of the tenant (an MCP client a user approved), listed
 * and revoked by owners and admins only, never another tenant's; a revoked grant's tokens stop
 * at once.
 */
const stack = useServiceBehindGateway(service);
let db: Db;

beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/** The status an MCP initialize with `token` gets. */
const mcpPost = (token: string) => postMcp(stack.url, token, mcpInitialize('2025-06-18', 'curl'));

describe('GET /api/mcp/connections', () => {
  it("lists the tenant's grants (never a token), never another tenant's", async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const other = await tenantSession(stack, db, 'owner');
    const mine = await grantMcpAccess(db, owner.tenantId, {
      scopes: ['mcp:read:leads', 'mcp:ingest:leads'],
      userId: owner.userId,
      clientName: 'Desktop agent',
    });
    const theirs = await grantMcpAccess(db, other.tenantId, { scopes: ['mcp:read:deals'] });

    const list = await sessionClient(stack.url, owner.cookie).get('/api/mcp/connections');
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total: 1, page: 1, pageSize: 20, totalPages: 1 });
    expect(list.body.data.items).toEqual([
      {
        id: mine.grantId,
        client_id: mine.clientId,
        client_name: 'Desktop agent',
        redirect_host: '127.0.0.1',
        scopes: ['mcp:read:leads', 'mcp:ingest:leads'],
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
        user_id: owner.userId,
      },
    ]);
    const body = JSON.stringify(list.body);
    expect(body).not.toContain(theirs.grantId);
    expect(body).not.toContain(mine.accessToken);

    const sorted = await sessionClient(stack.url, owner.cookie).get(
      '/api/mcp/connections?sortBy=client_name&sortOrder=asc',
    );
    expect(sorted.status).toBe(200);
    const bad = await sessionClient(stack.url, owner.cookie).get(
      '/api/mcp/connections?sortBy=token_hash',
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
  });

  it('members and viewers are refused (403) listing and revoking; admins may do both', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const grant = await grantMcpAccess(db, owner.tenantId, { scopes: ['mcp:read:leads'] });
    for (const role of ['member', 'viewer'] as const) {
      const someone = await tenantSession(stack, db, role);
      // Their own tenant's grant: the role refuses, not the tenant.
      const theirs = await grantMcpAccess(db, someone.tenantId, { scopes: ['mcp:read:leads'] });
      const client = sessionClient(stack.url, someone.cookie);
      expect((await client.get('/api/mcp/connections')).status).toBe(403);
      expect((await client.delete(`/api/mcp/connections/${theirs.grantId}`)).status).toBe(403);
      expect((await mcpPost(theirs.accessToken)).status).toBe(200);
    }
    const admin = await tenantSession(stack, db, 'admin');
    const adminGrant = await grantMcpAccess(db, admin.tenantId, { scopes: ['mcp:read:leads'] });
    const adminClient = sessionClient(stack.url, admin.cookie);
    expect((await adminClient.get('/api/mcp/connections')).body.data.total).toBe(1);
    expect((await adminClient.delete(`/api/mcp/connections/${adminGrant.grantId}`)).status).toBe(
      200,
    );
    expect((await mcpPost(grant.accessToken)).status).toBe(200);
  });
});

describe('DELETE /api/mcp/connections/:id', () => {
  it("revokes at once: the grant's token gets 401 on its next request", async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const grant = await grantMcpAccess(db, owner.tenantId, { scopes: ['mcp:ingest:leads'] });
    expect((await mcpPost(grant.accessToken)).status).toBe(200);

    const revoked = await sessionClient(stack.url, owner.cookie).delete(
      `/api/mcp/connections/${grant.grantId}`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.connection).toMatchObject({
      id: grant.grantId,
      revoked_at: expect.any(String),
    });
    const refused = await mcpPost(grant.accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('resource_metadata=');

    // Revoking again keeps the first time; the list shows it revoked.
    const again = await sessionClient(stack.url, owner.cookie).delete(
      `/api/mcp/connections/${grant.grantId}`,
    );
    expect(again.body.data.connection.revoked_at).toBe(revoked.body.data.connection.revoked_at);
    const list = await sessionClient(stack.url, owner.cookie).get('/api/mcp/connections');
    expect(list.body.data.items[0].revoked_at).toBe(revoked.body.data.connection.revoked_at);
  });

  it("another tenant's id and a malformed id are 404, and the other tenant's grant keeps working", async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const other = await tenantSession(stack, db, 'owner');
    const theirs = await grantMcpAccess(db, other.tenantId, { scopes: ['mcp:ingest:leads'] });
    const client = sessionClient(stack.url, owner.cookie);
    const foreign = await client.delete(`/api/mcp/connections/${theirs.grantId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect((await client.delete('/api/mcp/connections/not-a-uuid')).status).toBe(404);
    expect((await mcpPost(theirs.accessToken)).status).toBe(200);
  });
});
