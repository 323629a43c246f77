import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { MCP_SCOPES } from '@crm/shared/mcp-access';
import { addMember, createAccount, createTenant, signIn, testDb, testGateway } from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import {
  approve,
  authorize,
  decide,
  ISSUER,
  MCP_RESOURCE,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  requestIdOf,
  startAuthorization,
  tokenCall,
} from './oauth-flow';

/*
 * The MCP OAuth authorization server at the gateway, up to the code: its metadata (RFC 8414),
 * dynamic client registration (RFC 7591), the authorize endpoint (PKCE S256 only, the MCP
 * resource only) and the console's consent routes (owners and admins connect a tenant).
 */
const database = testDb();
const gateway = testGateway();
const { app } = gateway;

let ownerCookie: string;
let ownerTenant: { id: string };
let adminTenant: { id: string };
let memberOnlyTenant: { id: string };

beforeAll(async () => {
  const user = await createAccount(database, 'consenter');
  ownerTenant = await createTenant(database, 'Owned Co');
  adminTenant = await createTenant(database, 'Administered Co');
  memberOnlyTenant = await createTenant(database, 'Member Co');
  await addMember(database, ownerTenant.id, user.id, 'owner');
  await addMember(database, adminTenant.id, user.id, 'admin');
  await addMember(database, memberOnlyTenant.id, user.id, 'member');
  ownerCookie = await signIn(app, user.email);
});

afterAll(async () => {
  await gateway.close();
  await database.close();
});

const clientRow = (clientId: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst(),
  );
const requestRow = (id: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_authorization_requests')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst(),
  );
const grantsOf = (clientId: string) =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('oauth_grants').selectAll().where('client_id', '=', clientId).execute(),
  );
/**
 * The clients registered under `name` or with `uri` among their redirect URIs: each refusal test
 * sends a value of its own, so other test files registering clients meanwhile do not count.
 */
const clientsWith = (match: { name?: string; uri?: string }) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_clients')
      .select('client_id')
      .where((eb) =>
        match.name !== undefined
          ? eb('client_name', '=', match.name)
          : eb(sql<string>`${match.uri ?? ''}`, '=', sql<string>`ANY(redirect_uris)`),
      )
      .execute(),
  );

describe('GET /.well-known/oauth-authorization-server', () => {
  it('describes the endpoints, PKCE S256, public clients and the MCP scopes, open cross-origin', async () => {
    const res = await request(app)
      .get('/.well-known/oauth-authorization-server')
      .set('Origin', 'https://agent.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // The public per-IP limit (RATE_LIMIT_PUBLIC_PER_MINUTE), as on the protocol endpoints.
    expect(res.headers['x-ratelimit-limit']).toBe('100000');
    expect(res.body).toEqual({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/api/oauth/authorize`,
      token_endpoint: `${ISSUER}/api/oauth/token`,
      registration_endpoint: `${ISSUER}/api/oauth/register`,
      revocation_endpoint: `${ISSUER}/api/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...MCP_SCOPES],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe('CORS on the protocol endpoints', () => {
  it("answers a browser client's preflight from any origin, without credentials", async () => {
    for (const path of ['/api/oauth/token', '/api/oauth/register', '/api/oauth/revoke']) {
      const res = await request(app)
        .options(path)
        .set('Origin', 'https://agent.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('keeps the consent routes to the configured origins', async () => {
    const res = await request(app)
      .options('/api/auth/oauth/requests/x/decision')
      .set('Origin', 'https://agent.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('POST /api/oauth/register', () => {
  it('registers a public client: 201 with our client_id, no secret, the accepted metadata stored', async () => {
    const res = await request(app)
      .post('/api/oauth/register')
      .set('Origin', 'https://agent.example')
      .send({
        redirect_uris: ['https://agent.example/cb', 'http://localhost:7777/cb', 'http://[::1]/cb'],
        client_name: '  Claude  ',
        token_endpoint_auth_method: 'none',
        software_id: 'ignored',
      });
    expect(res.status).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-ratelimit-limit']).toBe('100000');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Claude',
      redirect_uris: ['https://agent.example/cb', 'http://localhost:7777/cb', 'http://[::1]/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(res.body).not.toHaveProperty('client_secret');
    expect(Math.abs(res.body.client_id_issued_at - Date.now() / 1000)).toBeLessThan(600);
    expect(await clientRow(res.body.client_id)).toMatchObject({
      client_name: 'Claude',
      source: 'registration',
      redirect_uris: ['https://agent.example/cb', 'http://localhost:7777/cb', 'http://[::1]/cb'],
    });
  });

  it.each([
    ['http on a host that is not loopback', ['http://agent.example/cb']],
    ['a fragment', ['https://agent.example/cb#frag']],
    ['an empty fragment', ['https://agent.example/cb#']],
    ['a relative URI', ['/cb']],
    ['a custom scheme', ['javascript:alert(1)']],
    ['credentials in the URI', ['https://user:pw@agent.example/cb']],
    ['no URIs', []],
    ['eleven URIs', Array.from({ length: 11 }, (_, i) => `https://agent.example/${i}`)],
    ['a URI that is not text', [42]],
    ['redirect_uris missing', undefined],
  ])('refuses %s: 400 invalid_redirect_uri, nothing stored', async (_what, uris) => {
    const name = `refused-${randomUUID()}`;
    const res = await request(app)
      .post('/api/oauth/register')
      .send({ redirect_uris: uris, client_name: name });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: expect.any(String),
    });
    expect(await clientsWith({ name })).toEqual([]);
  });

  it.each([
    ['a confidential client', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['the implicit grant', { grant_types: ['implicit'] }],
    ['response type token', { response_types: ['token'] }],
    ['a name of 201 characters', { client_name: 'x'.repeat(201) }],
  ])('refuses %s: 400 invalid_client_metadata, nothing stored', async (_what, metadata) => {
    const uri = `https://agent-${randomUUID()}.example/cb`;
    const res = await request(app)
      .post('/api/oauth/register')
      .send({ redirect_uris: [uri], ...metadata });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.any(String),
    });
    expect(await clientsWith({ uri })).toEqual([]);
  });

  it('answers a body that is not JSON in the OAuth error shape', async () => {
    const res = await request(app)
      .post('/api/oauth/register')
      .set('content-type', 'application/json')
      .send('{"redirect_uris": [');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.any(String),
    });
  });
});

describe('GET /api/oauth/authorize', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await registerClient(app);
  });

  it('stores the request for ten minutes and sends the browser to the consent page', async () => {
    const { challenge } = pkcePair();
    const res = await authorize(app, {
      client_id: clientId,
      code_challenge: challenge,
      scope: 'mcp:read:deals mcp:ingest:leads mcp:read:deals',
      resource: MCP_RESOURCE,
    });
    expect(res.status).toBe(302);
    const id = requestIdOf(res.headers.location);
    const row = await requestRow(id);
    expect(row).toMatchObject({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scopes: ['mcp:ingest:leads', 'mcp:read:deals'],
      state: 'st-123',
      code_challenge: challenge,
      resource: MCP_RESOURCE,
    });
    const lifetime = row!.expires_at.getTime() - row!.created_at.getTime();
    expect(lifetime).toBe(10 * 60 * 1000);
  });

  it('asks for every MCP scope when scope is absent', async () => {
    const { requestId } = await startAuthorization(app, clientId);
    expect((await requestRow(requestId))?.scopes).toEqual([...MCP_SCOPES]);
  });

  it('answers an unknown client 400 itself, never redirecting', async () => {
    const res = await authorize(app, {
      client_id: 'no-such-client',
      code_challenge: pkcePair().challenge,
    });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Unknown client_id' });
  });

  it.each([
    ['another path', 'http://127.0.0.1:33418/elsewhere'],
    ['another path, another port', 'http://127.0.0.1:50123/elsewhere'],
    ['another loopback host', 'http://localhost:33418/callback'],
    ['another loopback host, another port', 'http://[::1]:50123/callback'],
    ['https instead of http', 'https://127.0.0.1:33418/callback'],
    ['an added query', `${REDIRECT_URI}?x=1`],
    ['an added query, another port', 'http://127.0.0.1:50123/callback?x=1'],
    ['port 0', 'http://127.0.0.1:0/callback'],
    ['a port over 65535', 'http://127.0.0.1:65536/callback'],
    ['a port with a leading zero', 'http://127.0.0.1:033418/callback'],
    ['credentials before the host', 'http://127.0.0.1:50123@evil.example/callback'],
    ['none', undefined],
  ])(
    'answers a redirect_uri not registered exactly (%s) 400 without redirecting',
    async (_w, uri) => {
      const res = await authorize(app, {
        client_id: clientId,
        redirect_uri: uri,
        code_challenge: pkcePair().challenge,
      });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.body.error).toBe('invalid_request');
    },
  );

  it('accepts any port for a loopback registration (OAuth 2.1 §8.4.2); the token request repeats it', async () => {
    for (const asked of ['http://127.0.0.1:50123/callback', 'http://127.0.0.1/callback']) {
      const { verifier, challenge } = pkcePair();
      const res = await authorize(app, {
        client_id: clientId,
        redirect_uri: asked,
        code_challenge: challenge,
      });
      expect(res.status).toBe(302);
      const requestId = requestIdOf(res.headers.location);
      expect((await requestRow(requestId))?.redirect_uri).toBe(asked);
      const answered = await decide(app, ownerCookie, requestId, {
        decision: 'approve',
        tenant_id: ownerTenant.id,
      });
      const back = new URL(answered.body.data.redirect_to);
      expect(`${back.origin}${back.pathname}`).toBe(asked);
      const code = back.searchParams.get('code')!;
      const form = {
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        code_verifier: verifier,
      };
      // The registered URI is not the one this authorization used: refused, the code kept.
      const registered = await tokenCall(app, { ...form, redirect_uri: REDIRECT_URI });
      expect(registered.body).toEqual({
        error: 'invalid_grant',
        error_description: 'redirect_uri is not the one of the authorize request',
      });
      expect((await tokenCall(app, { ...form, redirect_uri: asked })).status).toBe(200);
    }
  });

  it('accepts an https registration only exactly: another port is refused', async () => {
    const httpsClient = await registerClient(app, ['https://agent.example/cb']);
    const attempt = (redirectUri: string) =>
      authorize(app, {
        client_id: httpsClient,
        redirect_uri: redirectUri,
        code_challenge: pkcePair().challenge,
      });
    const other = await attempt('https://agent.example:8443/cb');
    expect(other.status).toBe(400);
    expect(other.headers.location).toBeUndefined();
    expect(other.body.error).toBe('invalid_request');
    expect((await attempt('https://agent.example:443/cb')).status).toBe(400);
    expect((await attempt('https://agent.example/cb')).status).toBe(302);
  });

  async function refusedByRedirect(params: Record<string, string | undefined>) {
    const res = await authorize(app, {
      client_id: clientId,
      code_challenge: pkcePair().challenge,
      ...params,
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe(ISSUER);
    expect(location.searchParams.get('code')).toBeNull();
    return location.searchParams;
  }

  it.each([
    ['without a code_challenge', { code_challenge: undefined }],
    ['without a code_challenge_method', { code_challenge_method: undefined }],
    ['with the plain method', { code_challenge_method: 'plain' }],
    ['with a challenge that is not a SHA-256', { code_challenge: 'short' }],
  ])('redirects a request %s with error=invalid_request', async (_what, params) => {
    const found = await refusedByRedirect(params);
    expect(found.get('error')).toBe('invalid_request');
    expect(found.get('error_description')).toMatch(/PKCE|S256|code_challenge/);
  });

  it('redirects another resource than the MCP server with invalid_target', async () => {
    const found = await refusedByRedirect({ resource: 'https://evil.example/api/mcp' });
    expect(found.get('error')).toBe('invalid_target');
  });

  it('redirects an unknown scope with invalid_scope and another response_type with unsupported_response_type', async () => {
    expect((await refusedByRedirect({ scope: 'mcp:admin' })).get('error')).toBe('invalid_scope');
    expect((await refusedByRedirect({ response_type: 'token' })).get('error')).toBe(
      'unsupported_response_type',
    );
  });

  it('stores nothing for a refused request', async () => {
    const count = () =>
      withSystemScope(database.db, (trx) =>
        trx
          .selectFrom('oauth_authorization_requests')
          .select('id')
          .where('client_id', '=', clientId)
          .execute(),
      );
    const before = (await count()).length;
    await refusedByRedirect({ code_challenge_method: 'plain' });
    await refusedByRedirect({ resource: 'https://evil.example/api/mcp' });
    expect((await count()).length).toBe(before);
  });
});

describe('the consent routes (/api/auth/oauth/requests)', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await registerClient(app);
  });

  it('shows the client, the scopes with their descriptions and only the tenants the user owns or administers', async () => {
    const { requestId } = await startAuthorization(app, clientId, {
      scope: 'mcp:ingest:leads mcp:read:deals',
    });
    const res = await request(app)
      .get(`/api/auth/oauth/requests/${requestId}`)
      .set('Cookie', ownerCookie);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: requestId,
      client: {
        client_id: clientId,
        name: 'Test Agent',
        redirect_host: '127.0.0.1:33418',
        // Registered by itself: nobody vouches for its name.
        document_host: null,
      },
      scopes: [
        { scope: 'mcp:ingest:leads', description: 'Create and update leads' },
        { scope: 'mcp:read:deals', description: 'List and read deals' },
      ],
      tenants: expect.arrayContaining([
        { id: ownerTenant.id, name: 'Owned Co', role: 'owner' },
        { id: adminTenant.id, name: 'Administered Co', role: 'admin' },
      ]),
      expires_at: expect.any(String),
    });
    expect(res.body.data.tenants).toHaveLength(2);
  });

  it('answers 401 signed out and 404 for an unknown or expired request', async () => {
    const { requestId } = await startAuthorization(app, clientId);
    expect((await request(app).get(`/api/auth/oauth/requests/${requestId}`)).status).toBe(401);
    expect((await decide(app, '', requestId, { decision: 'deny' })).status).toBe(401);
    const unknown = 'A'.repeat(43);
    const res = await request(app)
      .get(`/api/auth/oauth/requests/${unknown}`)
      .set('Cookie', ownerCookie);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('oauth_authorization_requests')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('id', '=', requestId)
        .execute(),
    );
    const expired = await request(app)
      .get(`/api/auth/oauth/requests/${requestId}`)
      .set('Cookie', ownerCookie);
    expect(expired.status).toBe(404);
    const decided = await decide(app, ownerCookie, requestId, { decision: 'deny' });
    expect(decided.status).toBe(404);
  });

  it('approve: a grant in the chosen tenant and a code on the redirect, with state and iss; the request is used up', async () => {
    const { requestId } = await startAuthorization(app, clientId, { scope: 'mcp:read:leads' });
    const res = await decide(app, ownerCookie, requestId, {
      decision: 'approve',
      tenant_id: adminTenant.id,
    });
    expect(res.status).toBe(200);
    const redirect = new URL(res.body.data.redirect_to);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect([...redirect.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    const code = redirect.searchParams.get('code')!;
    expect(code).toMatch(/^crm_oac_[A-Za-z0-9_-]{43}$/);
    expect(redirect.searchParams.get('state')).toBe('st-123');
    expect(redirect.searchParams.get('iss')).toBe(ISSUER);
    expect(await requestRow(requestId)).toBeUndefined();
    const grants = await grantsOf(clientId);
    expect(grants).toEqual([
      expect.objectContaining({
        tenant_id: adminTenant.id,
        client_name: 'Test Agent',
        redirect_host: '127.0.0.1:33418',
        scopes: ['mcp:read:leads'],
        resource: MCP_RESOURCE,
        revoked_at: null,
      }),
    ]);
    const codes = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('oauth_codes').selectAll().where('grant_id', '=', grants[0].id).execute(),
    );
    expect(codes).toHaveLength(1);
    expect(codes[0].code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(codes)).not.toContain(code);
    expect(codes[0].expires_at.getTime() - codes[0].created_at.getTime()).toBe(5 * 60 * 1000);
    // Used up: a second answer finds nothing.
    expect((await decide(app, ownerCookie, requestId, { decision: 'deny' })).status).toBe(404);
  });

  it('deny: access_denied on the redirect, no grant, the request used up', async () => {
    const denying = await registerClient(app);
    const { requestId } = await startAuthorization(app, denying);
    const res = await decide(app, ownerCookie, requestId, { decision: 'deny' });
    expect(res.status).toBe(200);
    const redirect = new URL(res.body.data.redirect_to);
    expect(Object.fromEntries(redirect.searchParams)).toEqual({
      error: 'access_denied',
      state: 'st-123',
      iss: ISSUER,
    });
    expect(await requestRow(requestId)).toBeUndefined();
    expect(await grantsOf(denying)).toEqual([]);
  });

  it('refuses a tenant where the user is only a member (403) and one they do not belong to, writing nothing', async () => {
    const refusing = await registerClient(app);
    const { requestId } = await startAuthorization(app, refusing);
    const other = await createTenant(database, 'Stranger Co');
    for (const tenantId of [memberOnlyTenant.id, other.id]) {
      const res = await decide(app, ownerCookie, requestId, {
        decision: 'approve',
        tenant_id: tenantId,
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    }
    expect(await grantsOf(refusing)).toEqual([]);
    // Not used up by a refusal: the owner can still answer.
    expect(await requestRow(requestId)).toBeDefined();
    await approve(app, ownerCookie, requestId, ownerTenant.id);
  });

  it('refuses a malformed decision 400', async () => {
    const { requestId } = await startAuthorization(app, clientId);
    for (const body of [
      {},
      { decision: 'approve' },
      { decision: 'approve', tenant_id: 'x' },
      { decision: 'maybe' },
    ]) {
      const res = await decide(app, ownerCookie, requestId, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
    expect(await requestRow(requestId)).toBeDefined();
  });

  it('keeps the cross-site guard on the decision (a cookie POST) while the token endpoint is open', async () => {
    const { requestId } = await startAuthorization(app, clientId);
    const forged = await decide(app, ownerCookie, requestId, { decision: 'deny' })
      .set('Origin', 'https://evil.example')
      .set('Sec-Fetch-Site', 'cross-site');
    expect(forged.status).toBe(403);
    expect(forged.body.error).toBe('Cross-site request refused');
    expect(await requestRow(requestId)).toBeDefined();
    const token = await request(app)
      .post('/api/oauth/token')
      .set('Cookie', ownerCookie)
      .set('Origin', 'https://agent.example')
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'crm_ort_x' });
    expect(token.status).toBe(400);
    expect(token.body.error).toBe('invalid_grant');
    expect(token.headers['access-control-allow-origin']).toBe('*');
  });
});
