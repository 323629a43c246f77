import { withSystemScope } from '@crm/shared/db';
import { hashOAuthSecret, MCP_SCOPES } from '@crm/shared/mcp-access';
import { addMember, createAccount, createTenant, signIn, testDb, testGateway } from '@crm/test-kit';
import request from 'supertest';
import {
  approve,
  connect,
  exchange,
  MCP_RESOURCE,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
  tokenCall,
  type Tokens,
} from './oauth-flow';

/*
 * The token endpoint and revocation: a code is exchanged once with its PKCE verifier, only
 * hashes are stored, refresh tokens rotate, a code or refresh token presented twice revokes the
 * whole grant, and revocation ends a token at once. Another tenant's grant is never touched.
 */
const database = testDb();
const gateway = testGateway();
const { app } = gateway;

let cookie: string;
let tenantId: string;
let otherTenantId: string;
let otherCookie: string;

beforeAll(async () => {
  const user = await createAccount(database, 'token-owner');
  const tenant = await createTenant(database, 'Token Co');
  tenantId = tenant.id;
  await addMember(database, tenantId, user.id, 'owner');
  cookie = await signIn(app, user.email);
  const other = await createAccount(database, 'other-owner');
  otherTenantId = (await createTenant(database, 'Other Co')).id;
  await addMember(database, otherTenantId, other.id, 'owner');
  otherCookie = await signIn(app, other.email);
});

afterAll(async () => {
  await gateway.close();
  await database.close();
});

const tokenRows = (grantId: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('grant_id', '=', grantId)
      .orderBy('created_at')
      .execute(),
  );
const grantOf = (clientId: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_grants')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow(),
  );
const tokenRow = (secret: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('token_hash', '=', hashOAuthSecret(secret))
      .executeTakeFirst(),
  );

function refresh(clientId: string, refreshToken: string, extra: Record<string, string> = {}) {
  return tokenCall(app, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    ...extra,
  });
}

/** A second tenant's working connection, to show nothing here touches it. */
async function otherTenantConnection(): Promise<{ clientId: string; tokens: Tokens }> {
  return connect(app, otherCookie, otherTenantId);
}

async function expectUntouched(connection: { clientId: string; tokens: Tokens }) {
  const grant = await grantOf(connection.clientId);
  expect(grant.revoked_at).toBeNull();
  expect(grant.tenant_id).toBe(otherTenantId);
  expect(await tokenRow(connection.tokens.access_token)).toBeDefined();
  expect(await tokenRow(connection.tokens.refresh_token)).toBeDefined();
}

describe('POST /api/oauth/token, grant_type=authorization_code', () => {
  it('exchanges a code for a bearer token pair; only their SHA-256 hashes are stored', async () => {
    const clientId = await registerClient(app);
    const { requestId, verifier } = await startAuthorization(app, clientId, {
      scope: 'mcp:ingest:leads mcp:read:leads',
    });
    const code = await approve(app, cookie, requestId, tenantId);
    const res = await exchange(app, clientId, code, verifier);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^crm_oat_[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^crm_ort_[A-Za-z0-9_-]{43}$/),
      scope: 'mcp:ingest:leads mcp:read:leads',
    });
    const grant = await grantOf(clientId);
    const rows = await tokenRows(grant.id);
    expect(rows.map((r) => r.kind).sort()).toEqual(['access', 'refresh']);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(res.body.access_token);
    expect(stored).not.toContain(res.body.refresh_token);
    const access = await tokenRow(res.body.access_token);
    const refreshRow = await tokenRow(res.body.refresh_token);
    expect(access).toMatchObject({ kind: 'access', used_at: null });
    expect(access!.expires_at.getTime() - access!.created_at.getTime()).toBe(3600 * 1000);
    expect(refreshRow!.expires_at.getTime() - refreshRow!.created_at.getTime()).toBe(
      30 * 24 * 3600 * 1000,
    );
    // "Last used" is the last MCP request (mcp-ingest records it), not a token's issue.
    expect(grant.last_used_at).toBeNull();
  });

  it('accepts the MCP resource named again and refuses another with invalid_target', async () => {
    const clientId = await registerClient(app);
    const first = await startAuthorization(app, clientId);
    const code = await approve(app, cookie, first.requestId, tenantId);
    const wrong = await tokenCall(app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: first.verifier,
      resource: 'https://elsewhere.example/api/mcp',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_target');
    const right = await tokenCall(app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: first.verifier,
      resource: MCP_RESOURCE,
    });
    expect(right.status).toBe(200);
    expect(right.body.scope).toBe(MCP_SCOPES.join(' '));
  });

  it('refuses a wrong verifier, another client and another redirect_uri with invalid_grant, issuing nothing', async () => {
    const clientId = await registerClient(app);
    const intruder = await registerClient(app);
    const { requestId, verifier } = await startAuthorization(app, clientId);
    const code = await approve(app, cookie, requestId, tenantId);
    const attempts = [
      { client_id: clientId, code_verifier: 'x'.repeat(43), redirect_uri: REDIRECT_URI },
      { client_id: clientId, code_verifier: 'short', redirect_uri: REDIRECT_URI },
      { client_id: intruder, code_verifier: verifier, redirect_uri: REDIRECT_URI },
      { client_id: clientId, code_verifier: verifier, redirect_uri: `${REDIRECT_URI}/x` },
    ];
    for (const attempt of attempts) {
      const res = await tokenCall(app, { grant_type: 'authorization_code', code, ...attempt });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    }
    const grant = await grantOf(clientId);
    expect(await tokenRows(grant.id)).toEqual([]);
    // A failed attempt does not use the code up: the right client still gets its tokens.
    expect((await exchange(app, clientId, code, verifier)).status).toBe(200);
  });

  it('revokes the grant and deletes its tokens when a code is presented a second time', async () => {
    const other = await otherTenantConnection();
    const clientId = await registerClient(app);
    const { requestId, verifier } = await startAuthorization(app, clientId);
    const code = await approve(app, cookie, requestId, tenantId);
    const first = await exchange(app, clientId, code, verifier);
    expect(first.status).toBe(200);
    const again = await exchange(app, clientId, code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    const grant = await grantOf(clientId);
    expect(grant.revoked_at).not.toBeNull();
    expect(await tokenRows(grant.id)).toEqual([]);
    // The first exchange's refresh token no longer works either.
    expect((await refresh(clientId, first.body.refresh_token)).body.error).toBe('invalid_grant');
    await expectUntouched(other);
  });

  it('refuses an expired code with invalid_grant', async () => {
    const clientId = await registerClient(app);
    const { requestId, verifier } = await startAuthorization(app, clientId);
    const code = await approve(app, cookie, requestId, tenantId);
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('oauth_codes')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('code_hash', '=', hashOAuthSecret(code))
        .execute(),
    );
    const res = await exchange(app, clientId, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The code has expired' });
  });

  it('answers malformed requests in the OAuth error shape', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'invalid_request'],
      [{ grant_type: 'password', client_id: 'c' }, 'unsupported_grant_type'],
      [{ grant_type: 'client_credentials', client_id: 'c' }, 'unsupported_grant_type'],
      [{ grant_type: 'authorization_code', client_id: 'c' }, 'invalid_request'],
      [
        {
          grant_type: 'authorization_code',
          client_id: 'c',
          code: 'nope',
          redirect_uri: REDIRECT_URI,
          code_verifier: 'v'.repeat(43),
        },
        'invalid_grant',
      ],
      [{ grant_type: 'refresh_token', client_id: 'c' }, 'invalid_request'],
      [
        { grant_type: 'refresh_token', client_id: 'c', refresh_token: 'r', scope: 'x' },
        'invalid_scope',
      ],
    ];
    for (const [form, error] of cases) {
      const res = await tokenCall(app, form);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error, error_description: expect.any(String) });
    }
    const json = await request(app)
      .post('/api/oauth/token')
      .send({ grant_type: 'authorization_code' });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
    const twice = await request(app)
      .post('/api/oauth/token')
      .type('form')
      .send('grant_type=refresh_token&grant_type=authorization_code&client_id=c');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toBe('invalid_request');
  });
});

describe('POST /api/oauth/token, grant_type=refresh_token', () => {
  it('rotates: a new pair, the old refresh token marked used, the old access token still valid until it expires', async () => {
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    const res = await refresh(clientId, tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(res.body.access_token).not.toBe(tokens.access_token);
    expect(res.body.scope).toBe(tokens.scope);
    expect((await tokenRow(tokens.refresh_token))?.used_at).not.toBeNull();
    expect(await tokenRow(res.body.refresh_token)).toMatchObject({
      kind: 'refresh',
      used_at: null,
    });
    expect(await tokenRow(res.body.access_token)).toMatchObject({ kind: 'access' });
    // The new one rotates in turn.
    expect((await refresh(clientId, res.body.refresh_token)).status).toBe(200);
    // Neither the exchange nor a refresh is a use of the connection: no MCP request was made.
    expect((await grantOf(clientId)).last_used_at).toBeNull();
  });

  it('a used refresh token presented again revokes the whole grant (reuse detection)', async () => {
    const other = await otherTenantConnection();
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    const rotated = await refresh(clientId, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const reused = await refresh(clientId, tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    const grant = await grantOf(clientId);
    expect(grant.revoked_at).not.toBeNull();
    expect(await tokenRows(grant.id)).toEqual([]);
    // The thief's rotated token is dead too.
    expect((await refresh(clientId, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
    await expectUntouched(other);
  });

  it('a narrower scope narrows the new access token only; wider ones are invalid_scope', async () => {
    const full = ['mcp:ingest:leads', 'mcp:read:leads'];
    const { clientId, tokens } = await connect(app, cookie, tenantId, { scope: full.join(' ') });
    expect((await tokenRow(tokens.access_token))?.scopes).toEqual(full);
    expect((await tokenRow(tokens.refresh_token))?.scopes).toEqual(full);
    const wider = await refresh(clientId, tokens.refresh_token, { scope: 'mcp:read:deals' });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    // Refused before it was used: the token still rotates.
    const narrower = await refresh(clientId, tokens.refresh_token, { scope: 'mcp:read:leads' });
    expect(narrower.status).toBe(200);
    expect(narrower.body.scope).toBe('mcp:read:leads');
    expect((await tokenRow(narrower.body.access_token))?.scopes).toEqual(['mcp:read:leads']);
    // The grant and the new refresh token keep every scope the user approved (RFC 6749 §6).
    expect((await grantOf(clientId)).scopes).toEqual(full);
    expect((await tokenRow(narrower.body.refresh_token))?.scopes).toEqual(full);
    // So a later refresh without scope gets them all back, and may narrow to the other one.
    const again = await refresh(clientId, narrower.body.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.scope).toBe(full.join(' '));
    expect((await tokenRow(again.body.access_token))?.scopes).toEqual(full);
    const other = await refresh(clientId, again.body.refresh_token, { scope: 'mcp:ingest:leads' });
    expect(other.body.scope).toBe('mcp:ingest:leads');
  });

  it("a refresh token narrower than its grant is held to its own scopes, not the grant's", async () => {
    const { clientId, tokens } = await connect(app, cookie, tenantId, {
      scope: 'mcp:ingest:leads mcp:read:leads',
    });
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('oauth_tokens')
        .set({ scopes: ['mcp:read:leads'] })
        .where('token_hash', '=', hashOAuthSecret(tokens.refresh_token))
        .execute(),
    );
    const wider = await refresh(clientId, tokens.refresh_token, { scope: 'mcp:ingest:leads' });
    expect(wider.body).toEqual({
      error: 'invalid_scope',
      error_description: 'The refresh token does not include mcp:ingest:leads',
    });
    const plain = await refresh(clientId, tokens.refresh_token);
    expect(plain.body.scope).toBe('mcp:read:leads');
    expect((await tokenRow(plain.body.refresh_token))?.scopes).toEqual(['mcp:read:leads']);
  });

  it('refuses another client, an access token, an expired refresh token and another resource', async () => {
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    const intruder = await registerClient(app);
    expect((await refresh(intruder, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(clientId, tokens.access_token)).body.error).toBe('invalid_grant');
    expect(
      (await refresh(clientId, tokens.refresh_token, { resource: 'https://x.example/api/mcp' }))
        .body.error,
    ).toBe('invalid_target');
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('oauth_tokens')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('token_hash', '=', hashOAuthSecret(tokens.refresh_token))
        .execute(),
    );
    const expired = await refresh(clientId, tokens.refresh_token);
    expect(expired.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The refresh token has expired',
    });
  });
});

describe('concurrent requests on one grant', () => {
  // Each token request locks the grant before its code or tokens, so requests on one grant are
  // served one after the other: never a deadlock (a 500), and the second always sees the first.

  const statusesOf = (responses: request.Response[]) => responses.map((r) => r.status).sort();

  it('the same code exchanged twice at once: one pair issued, the other a replay revoking the grant', async () => {
    const clientId = await registerClient(app);
    const { requestId, verifier } = await startAuthorization(app, clientId);
    const code = await approve(app, cookie, requestId, tenantId);
    const both = await Promise.all([
      exchange(app, clientId, code, verifier),
      exchange(app, clientId, code, verifier),
    ]);
    expect(statusesOf(both)).toEqual([200, 400]);
    const issued = both.find((r) => r.status === 200)!;
    const replay = both.find((r) => r.status === 400)!;
    expect(replay.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The code was already used; its grant is revoked',
    });
    // The replay came after the exchange and revoked its grant: no pair is left working.
    const grant = await grantOf(clientId);
    expect(grant.revoked_at).not.toBeNull();
    expect(await tokenRows(grant.id)).toEqual([]);
    expect((await refresh(clientId, issued.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('the same refresh token twice at once: one rotation, the other reuse revoking the grant', async () => {
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    const both = await Promise.all([
      refresh(clientId, tokens.refresh_token),
      refresh(clientId, tokens.refresh_token),
    ]);
    expect(statusesOf(both)).toEqual([200, 400]);
    const rotated = both.find((r) => r.status === 200)!;
    expect(both.find((r) => r.status === 400)!.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The refresh token was already used; its grant is revoked',
    });
    const grant = await grantOf(clientId);
    expect(grant.revoked_at).not.toBeNull();
    expect(await tokenRows(grant.id)).toEqual([]);
    expect((await refresh(clientId, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a reused refresh token and the live one at once: the grant ends revoked with no token left', async () => {
    // Either the rotation runs first and the reuse then deletes the pair it issued, or the reuse
    // runs first and the live token is gone: both orders leave nothing that works.
    for (let round = 0; round < 4; round += 1) {
      const { clientId, tokens } = await connect(app, cookie, tenantId);
      const live = (await refresh(clientId, tokens.refresh_token)).body.refresh_token as string;
      const both = await Promise.all([
        refresh(clientId, tokens.refresh_token),
        refresh(clientId, live),
        request(app).post('/api/oauth/revoke').type('form').send({ token: live }),
      ]);
      for (const res of both) expect(res.status).toBeLessThan(500);
      expect(both[0].body.error).toBe('invalid_grant');
      const grant = await grantOf(clientId);
      expect(grant.revoked_at).not.toBeNull();
      expect(await tokenRows(grant.id)).toEqual([]);
    }
  });
});

describe('POST /api/oauth/revoke', () => {
  const revoke = (form: Record<string, string>) =>
    request(app).post('/api/oauth/revoke').type('form').send(form);

  it('deletes an access token at once: 200, the row gone, the refresh token still working', async () => {
    const other = await otherTenantConnection();
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    const res = await revoke({
      token: tokens.access_token,
      token_type_hint: 'access_token',
      client_id: clientId,
    });
    expect(res.status).toBe(200);
    expect(await tokenRow(tokens.access_token)).toBeUndefined();
    expect((await grantOf(clientId)).revoked_at).toBeNull();
    expect((await refresh(clientId, tokens.refresh_token)).status).toBe(200);
    await expectUntouched(other);
  });

  it('a refresh token revokes its grant and every token of it', async () => {
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    expect((await revoke({ token: tokens.refresh_token, client_id: clientId })).status).toBe(200);
    const grant = await grantOf(clientId);
    expect(grant.revoked_at).not.toBeNull();
    expect(await tokenRows(grant.id)).toEqual([]);
  });

  it('answers 200 for an unknown token and leaves a token alone when another client names it', async () => {
    const { clientId, tokens } = await connect(app, cookie, tenantId);
    const intruder = await registerClient(app);
    expect((await revoke({ token: 'crm_oat_' + 'A'.repeat(43) })).status).toBe(200);
    expect((await revoke({ token: 'anything at all' })).status).toBe(200);
    expect((await revoke({ token: tokens.access_token, client_id: intruder })).status).toBe(200);
    expect(await tokenRow(tokens.access_token)).toBeDefined();
    expect((await grantOf(clientId)).revoked_at).toBeNull();
  });

  it('refuses a request without a token: 400 invalid_request', async () => {
    const res = await revoke({ client_id: 'c' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'token is required' });
  });
});
