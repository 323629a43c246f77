import { createHash, randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

/*
 * An MCP client's side of the OAuth flow against the gateway, for the authorization server's
 * tests: register, authorize (PKCE S256), the user's consent through the console's routes, the
 * token calls.
 */

export const REDIRECT_URI = 'http://127.0.0.1:33418/callback';
export const ISSUER = 'http://localhost:8080';
export const MCP_RESOURCE = `${ISSUER}/api/mcp`;

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(
  app: Express,
  redirectUris: string[] = [REDIRECT_URI],
): Promise<string> {
  const res = await request(app)
    .post('/api/oauth/register')
    .send({ redirect_uris: redirectUris, client_name: 'Test Agent' });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.client_id;
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  resource?: string;
}

/** GET /api/oauth/authorize with the usual parameters, `params` overriding (undefined drops one). */
export function authorize(app: Express, params: AuthorizeParams & Record<string, unknown>) {
  const query: Record<string, string> = {};
  const all = {
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge_method: 'S256',
    state: 'st-123',
    ...params,
  };
  for (const [name, value] of Object.entries(all))
    if (value !== undefined) query[name] = String(value);
  return request(app).get('/api/oauth/authorize').query(query);
}

/** The authorization request id the authorize call sent the browser to the consent page with. */
export function requestIdOf(location: string | undefined): string {
  const match = /^\/oauth\/consent\?request=([A-Za-z0-9_-]{43})$/.exec(location ?? '');
  if (!match) throw new Error(`not a consent redirect: ${location}`);
  return match[1];
}

/** A started authorization: its request id and PKCE verifier. */
export async function startAuthorization(
  app: Express,
  clientId: string,
  extra: Partial<AuthorizeParams> = {},
): Promise<{ requestId: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const res = await authorize(app, { client_id: clientId, code_challenge: challenge, ...extra });
  if (res.status !== 302) throw new Error(`authorize: ${res.status} ${JSON.stringify(res.body)}`);
  return { requestId: requestIdOf(res.headers.location), verifier };
}

export function decide(app: Express, cookie: string, requestId: string, body: object) {
  return request(app)
    .post(`/api/auth/oauth/requests/${requestId}/decision`)
    .set('Cookie', cookie)
    .send(body);
}

/** Approves for `tenantId` and returns the code from the redirect. */
export async function approve(
  app: Express,
  cookie: string,
  requestId: string,
  tenantId: string,
): Promise<string> {
  const res = await decide(app, cookie, requestId, { decision: 'approve', tenant_id: tenantId });
  if (res.status !== 200) throw new Error(`approve: ${res.status} ${JSON.stringify(res.body)}`);
  const code = new URL(res.body.data.redirect_to).searchParams.get('code');
  if (!code) throw new Error(`no code in ${res.body.data.redirect_to}`);
  return code;
}

export function tokenCall(app: Express, form: Record<string, string>) {
  return request(app).post('/api/oauth/token').type('form').send(form);
}

export function exchange(app: Express, clientId: string, code: string, verifier: string) {
  return tokenCall(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** Register, authorize, approve for `tenantId` and exchange: a working pair of tokens. */
export async function connect(
  app: Express,
  cookie: string,
  tenantId: string,
  extra: Partial<AuthorizeParams> = {},
): Promise<{ clientId: string; tokens: Tokens }> {
  const clientId = await registerClient(app);
  const { requestId, verifier } = await startAuthorization(app, clientId, extra);
  const code = await approve(app, cookie, requestId, tenantId);
  const res = await exchange(app, clientId, code, verifier);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return { clientId, tokens: res.body };
}
