import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db } from '@crm/shared/db';
import { hashOAuthSecret, MCP_SCOPES } from '@crm/shared/mcp-access';
import {
  eventually,
  grantMcpAccess,
  sessionClient,
  tenantRowCounts,
  tenantRows,
  tenantSession,
  usePlatformBehindGateway,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service } from '../src/main';

/**
 * The whole MCP authorization flow as a hosted client runs it, with the official SDK client
 * against the real gateway (the authorization server) and the real mcp-ingest (the resource
 * server): discovery from the 401, dynamic registration, the authorization request, the
 * signed-in user's consent, the code exchange, tools, a refresh and a revocation.
 */
const stack = usePlatformBehindGateway([{ service }], { publicBaseUrlIsTheGateway: true });
let db: Db;

beforeAll(() => {
  db = stack.database;
});

const REDIRECT_URL = 'http://127.0.0.1:33418/callback';

/** What a client application keeps between the steps of the flow (in memory here). */
class RememberingProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(private readonly scope: string) {}

  get redirectUrl() {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Hosted test agent',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: this.scope,
    };
  }

  clientInformation() {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }
}

function transportFor(provider: OAuthClientProvider) {
  return new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`), {
    authProvider: provider,
  });
}

/** The user's side of the redirect: the authorize URL, then the consent page's approval. */
async function approveAsUser(authorizationUrl: URL, cookie: string, tenantId: string) {
  const authorize = await request(stack.url).get(
    `${authorizationUrl.pathname}${authorizationUrl.search}`,
  );
  expect(authorize.status).toBe(302);
  const consentPage = new URL(authorize.headers.location as string, stack.url);
  expect(consentPage.pathname).toBe('/oauth/consent');
  const requestId = consentPage.searchParams.get('request') as string;

  const shown = await sessionClient(stack.url, cookie).get(`/api/auth/oauth/requests/${requestId}`);
  expect(shown.status).toBe(200);
  expect(shown.body.data.client).toMatchObject({
    name: 'Hosted test agent',
    redirect_host: '127.0.0.1:33418',
  });
  expect(shown.body.data.tenants.map((t: { id: string }) => t.id)).toContain(tenantId);

  const decided = await sessionClient(stack.url, cookie).post(
    `/api/auth/oauth/requests/${requestId}/decision`,
    { decision: 'approve', tenant_id: tenantId },
  );
  expect(decided.status).toBe(200);
  const back = new URL(decided.body.data.redirect_to as string);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URL);
  expect(back.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
  return back.searchParams.get('code') as string;
}

async function grantsOf(tenantId: string) {
  const { rows } = await sql<{
    id: string;
    revoked_at: Date | null;
    last_used_at: Date | null;
    scopes: string[];
  }>`SELECT id, revoked_at, last_used_at, scopes FROM oauth_grants
    WHERE tenant_id = ${tenantId}`.execute(db.db);
  return rows;
}

async function tokensOf(grantId: string) {
  const { rows } = await sql<{
    token_hash: string;
    kind: string;
    used_at: Date | null;
  }>`SELECT token_hash, kind, used_at FROM oauth_tokens WHERE grant_id = ${grantId}`.execute(db.db);
  return rows;
}

describe('a hosted MCP client signs in with OAuth 2.1 through the official SDK', () => {
  it('discovers, registers, gets consent, calls tools, refreshes and is revoked', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const other = await tenantSession(stack, db, 'owner');
    const provider = new RememberingProvider('mcp:ingest:leads mcp:read:leads');

    // 1. No credential: the 401 names the protected resource metadata; the SDK discovers the
    //    authorization server from it, registers, and sends the user to authorize.
    const first = new Client({ name: 'hosted-agent', version: '1.0.0' });
    await expect(first.connect(transportFor(provider))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toBeTruthy();
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.pathname).toBe('/api/oauth/authorize');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${stack.url}/api/mcp`);

    // 2. The signed-in owner approves on the consent page; the SDK exchanges the code.
    const code = await approveAsUser(authorizationUrl, owner.cookie, owner.tenantId);
    const signingIn = transportFor(provider);
    await signingIn.finishAuth(code);
    const tokens = provider.saved as OAuthTokens;
    expect(tokens.access_token).toMatch(/^crm_oat_/);
    expect(tokens.refresh_token).toMatch(/^crm_ort_/);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    const [grant] = await grantsOf(owner.tenantId);
    // The SDK asks for the scopes the protected resource metadata lists (the MCP scope
    // selection rule when the 401 names none); the grant holds what the user approved.
    const asked = (authorizationUrl.searchParams.get('scope') as string).split(' ').sort();
    expect(asked).toEqual([...MCP_SCOPES].sort());
    expect(grant.scopes.sort()).toEqual(asked);
    // Signing in is not a use of the connection: "last used" is the last MCP request.
    expect(grant.last_used_at).toBeNull();
    const stored = await tokensOf(grant.id);
    expect(stored.map((t) => t.token_hash)).toContain(hashOAuthSecret(tokens.access_token));
    expect(JSON.stringify(stored)).not.toContain(tokens.access_token);

    // 3. Tools as the grant allows them; writes land in the grant's tenant, whatever the payload says.
    const client = new Client({ name: 'hosted-agent', version: '1.0.0' });
    await client.connect(transportFor(provider));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['ingest_leads', 'search_leads']),
    );
    // Every tool: 5 ingest and 6 read (the grant holds every scope).
    expect(tools).toHaveLength(11);
    const ingested = await client.callTool({
      name: 'ingest_leads',
      arguments: {
        records: [{ email: 'oauth-agent@example.test', tenant_id: other.tenantId }],
      },
    });
    expect(ingested.isError).toBeFalsy();
    expect(ingested.structuredContent).toMatchObject({ imported: 1, failed: 0 });
    expect(await tenantRows(db, 'crm_leads', owner.tenantId)).toHaveLength(1);
    expect(await tenantRows(db, 'crm_leads', other.tenantId)).toHaveLength(0);
    const found = await client.callTool({
      name: 'search_leads',
      arguments: { q: 'oauth-agent' },
    });
    expect(found.isError).toBeFalsy();
    expect(JSON.stringify(found.structuredContent)).toContain('oauth-agent@example.test');
    await client.close();
    // mcp-ingest records the use after answering (at most once a minute): read until it lands.
    await eventually(async () => {
      expect((await grantsOf(owner.tenantId))[0].last_used_at).not.toBeNull();
    });

    // 4. An access token the server no longer accepts: the SDK refreshes, and the refresh
    //    token rotates (the old one is marked used, a new pair is stored).
    const firstRefresh = tokens.refresh_token as string;
    provider.saved = { ...tokens, access_token: `crm_oat_${'x'.repeat(43)}` };
    const refreshed = new Client({ name: 'hosted-agent', version: '1.0.0' });
    await refreshed.connect(transportFor(provider));
    expect((await refreshed.listTools()).tools).toHaveLength(11);
    await refreshed.close();
    const rotated = provider.saved as OAuthTokens;
    expect(rotated.refresh_token).not.toBe(firstRefresh);
    const afterRefresh = await tokensOf(grant.id);
    const old = afterRefresh.find((t) => t.token_hash === hashOAuthSecret(firstRefresh));
    expect(old?.used_at).not.toBeNull();

    // 5. Revoked (RFC 7009): the access token is refused at once.
    const revoked = await request(stack.url)
      .post('/api/oauth/revoke')
      .type('form')
      .send({ token: rotated.access_token, client_id: provider.information?.client_id });
    expect(revoked.status).toBe(200);
    const refused = await request(stack.url)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${rotated.access_token}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain(
      `resource_metadata="${stack.url}/.well-known/oauth-protected-resource/api/mcp"`,
    );
  });

  it('revokes the whole grant when a used refresh token comes back', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const provider = new RememberingProvider('mcp:read:leads');
    await expect(
      new Client({ name: 'a', version: '1' }).connect(transportFor(provider)),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const code = await approveAsUser(
      provider.authorizationUrl as URL,
      owner.cookie,
      owner.tenantId,
    );
    await transportFor(provider).finishAuth(code);
    const { refresh_token: stolen } = provider.saved as OAuthTokens;
    const clientId = provider.information?.client_id as string;

    const refresh = (token: string) =>
      request(stack.url)
        .post('/api/oauth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
    const legitimate = await refresh(stolen as string);
    expect(legitimate.status).toBe(200);
    const replayed = await refresh(stolen as string);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');

    const [grant] = await grantsOf(owner.tenantId);
    expect(grant.revoked_at).not.toBeNull();
    const afterReuse = await request(stack.url)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${legitimate.body.access_token as string}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(afterReuse.status).toBe(401);
  });

  it('steps up on a 403 by asking for the scopes it had plus the missing one', async () => {
    const owner = await tenantSession(stack, db, 'owner');
    const { accessToken, clientId } = await grantMcpAccess(db, owner.tenantId, {
      scopes: ['mcp:ingest:leads', 'mcp:read:leads'],
      publicBaseUrl: stack.url,
    });
    // A client holding an access token of two scopes (and no refresh token, which the SDK
    // would try first: a refresh keeps the grant's scopes).
    const provider = new RememberingProvider('mcp:ingest:leads mcp:read:leads');
    provider.information = { client_id: clientId };
    provider.saved = { access_token: accessToken, token_type: 'Bearer' };
    const client = new Client({ name: 'stepping-up', version: '1.0.0' });
    await client.connect(transportFor(provider));
    const before = await tenantRowCounts(db, owner.tenantId);
    // Out of its scopes: the 403's challenge sends the SDK to authorize again, with exactly
    // the challenged scopes: the new token would keep the two it had.
    await expect(
      client.callTool({ name: 'ingest_products', arguments: { records: [{ sku: 'UP-1' }] } }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const asked = (provider.authorizationUrl as URL).searchParams.get('scope') as string;
    expect(asked.split(' ').sort()).toEqual([
      'mcp:ingest:leads',
      'mcp:ingest:products',
      'mcp:read:leads',
    ]);
    expect(await tenantRowCounts(db, owner.tenantId)).toEqual(before);
    await client.close();
  });
});
