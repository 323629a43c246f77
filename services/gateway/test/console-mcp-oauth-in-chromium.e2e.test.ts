import { createHash, randomBytes } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  buildConsoleIfMissing,
  createAccount,
  createTenant,
  launchChromium,
  PASSWORD,
  saveScreenshot,
  seriousAxeViolations,
  signInThroughConsole,
  usePlatformBehindGateway,
  isSignedOutAnswer,
  watchForProblems,
} from '@crm/test-kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Locator, Page } from 'playwright-core';
import { service as mcpIngest } from '../../mcp-ingest/src/main';

/*
 * MCP OAuth in the console, in real headless Chromium through a real gateway (the
 * authorization server) in front of real mcp-ingest (the resource server). An app registers
 * (RFC 7591) and sends a signed-out owner to /api/oauth/authorize: the consent page sends them
 * to sign-in and back with its ?request=; they approve from the keyboard into one of the
 * workspaces they own or administer, and land on the app's redirect URI with a code, which the
 * app exchanges (PKCE) for a token the official MCP client writes a lead with. The answered
 * request is gone; a denial sends access_denied back and grants nothing; a member of no
 * workspace they manage cannot approve, and is told Connected apps are for owners and admins
 * without the console asking the API for them. On the MCP keys
 * screen the owner finds the app under Connected apps and revokes it: its token is refused.
 * Grants are asserted in Postgres. No console error, no serious axe finding; screenshots go to
 * artifacts/console-oauth-consent.png and console-connected-apps.png.
 */
const stack = usePlatformBehindGateway([{ service: mcpIngest }]);
const APP = 'Claude test app';
const CALLBACK_PATH = '/oauth-test-app/callback';
let browser: Browser;
let owner: Page;
let member: Page;
let ownerProblems: string[] = [];
let memberProblems: string[] = [];
const own = {
  tenantId: '',
  adminTenantId: '',
  ownerEmail: '',
  ownerId: '',
  memberEmail: '',
  clientId: '',
  accessToken: '',
  refreshToken: '',
};
/** The answered consent page, opened again in the expiry test. */
let answeredConsentUrl = '';
/** The app's PKCE verifier and state of the approved authorization. */
const approved = { verifier: '', state: '', code: '' };

const callback = () => `${stack.url}${CALLBACK_PATH}`;
const path = (url: string) => new URL(url).pathname;

function grantsOf(tenantId: string) {
  return withSystemScope(stack.database.db, (trx) =>
    trx
      .selectFrom('oauth_grants')
      .select(['client_id', 'client_name', 'scopes', 'user_id', 'revoked_at'])
      .where('tenant_id', '=', tenantId)
      .execute(),
  );
}

/** A PKCE pair (RFC 7636, S256) and a state, as an OAuth client makes them. */
function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge, state: randomBytes(12).toString('base64url') };
}

function authorizeUrl(challenge: string, state: string): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: own.clientId,
    redirect_uri: callback(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'mcp:ingest:leads mcp:read:leads',
    state,
  });
  return `${stack.url}/api/oauth/authorize?${params}`;
}

/** Where the consent page sent the browser back to: the app's redirect URI and its query. */
async function backAtTheApp(page: Page): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.pathname === CALLBACK_PATH);
  await page.getByText('Back in the test app').waitFor();
  return new URL(page.url()).searchParams;
}

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** The status of an MCP initialize sent with `token`. */
/** The app's POST to the token endpoint, form-encoded as a client sends it. */
function tokenRequest(params: Record<string, string>): Promise<Response> {
  return fetch(`${stack.url}/api/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
}

async function mcpStatus(token: string): Promise<number> {
  const res = await fetch(`${stack.url}/api/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'status-probe', version: '1.0.0' },
      },
    }),
  });
  await res.body?.cancel();
  return res.status;
}

async function expectAxeClean(page: Page) {
  expect(await seriousAxeViolations(page)).toEqual([]);
}

/** Whether the element has the keyboard focus. */
function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === element.ownerDocument.activeElement);
}

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  const db = stack.database;
  const tenant = await createTenant(db, 'Acme OAuth console test');
  const adminTenant = await createTenant(db, 'Beta administered');
  const memberTenant = await createTenant(db, 'Gamma membership only');
  const user = await createAccount(db, 'console-oauth-owner');
  // Joined last, Acme is the tenant the console selects for the owner.
  await addMember(db, memberTenant.id, user.id, 'member');
  await addMember(db, adminTenant.id, user.id, 'admin');
  await addMember(db, tenant.id, user.id, 'owner');
  const plain = await createAccount(db, 'console-oauth-member');
  await addMember(db, tenant.id, plain.id, 'member');
  Object.assign(own, {
    tenantId: tenant.id,
    adminTenantId: adminTenant.id,
    ownerEmail: user.email,
    ownerId: user.id,
    memberEmail: plain.email,
  });

  const registered = await fetch(`${stack.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: APP,
      redirect_uris: [callback()],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
  own.clientId = ((await registered.json()) as { client_id: string }).client_id;

  const pages: Page[] = [];
  for (let i = 0; i < 2; i++) {
    const context = await browser.newContext({ baseURL: stack.url });
    // The app's redirect URI: a page of the app, not the console's.
    await context.route(
      (url) => url.pathname === CALLBACK_PATH,
      (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><p>Back in the test app' }),
    );
    pages.push(await context.newPage());
  }
  [owner, member] = pages;
  // Signed out, the consent page's request is a 401 (that is how it knows to send the user to
  // sign-in); an answered request is a 404, which the page explains. Switching the tenant
  // cancels the requests of the tenant left, on purpose.
  const isRequest = (url: string) => path(url).startsWith('/api/auth/oauth/requests/');
  const expectedAnswers = (url: string, status: number) =>
    isSignedOutAnswer(url, status) || (isRequest(url) && (status === 401 || status === 404));
  ownerProblems = watchForProblems(owner, {
    origin: stack.url,
    allow: { response: expectedAnswers, aborted: true },
  });
  memberProblems = watchForProblems(member, {
    origin: stack.url,
    allow: { response: expectedAnswers },
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

describe('the consent page', () => {
  it('sends a signed-out user to sign-in and back, then asks which workspace the app may use', async () => {
    const { challenge, verifier, state } = pkce();
    Object.assign(approved, { verifier, state });
    await owner.goto(authorizeUrl(challenge, state));
    await owner.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signInThroughConsole(owner, own.ownerEmail, PASSWORD);

    await owner.getByRole('heading', { name: `Allow ${APP} to use your CRM?`, level: 1 }).waitFor();
    const here = new URL(owner.url());
    expect(here.pathname).toBe('/oauth/consent');
    expect(here.searchParams.get('request')).toMatch(/.{16,}/);
    answeredConsentUrl = owner.url();
    await owner.getByText(`Signed in as ${own.ownerEmail}.`).waitFor();
    // It registered itself (RFC 7591), so its name is nobody's word but its own.
    await owner
      .getByText(`${APP} registered itself under this name, which nobody has verified`, {
        exact: false,
      })
      .waitFor();
    await owner
      .getByText(new RegExp(`After your answer you go back to ${new URL(stack.url).hostname}`))
      .waitFor();
    const scopes = owner.getByRole('list', { name: `${APP} asks to:` });
    expect(await scopes.getByRole('listitem').allInnerTexts()).toEqual([
      'Create and update leads mcp:ingest:leads',
      'Search and read leads, with their timelines mcp:read:leads',
    ]);
    // The workspaces it may use: those the user owns or administers, not the one they are a
    // member of.
    const workspace = owner.getByLabel('Workspace');
    expect((await workspace.getByRole('option').allInnerTexts()).sort()).toEqual([
      'Acme OAuth console test (owner)',
      'Beta administered (admin)',
    ]);
    await saveScreenshot(owner, 'console-oauth-consent', { fullPage: true });
    await expectAxeClean(owner);
  });

  it('approves from the keyboard: back at the app with a code, the grant in the chosen tenant', async () => {
    const workspace = owner.getByLabel('Workspace');
    await owner.keyboard.press('Tab');
    expect(await isFocused(workspace)).toBe(true);
    await workspace.selectOption({ label: 'Acme OAuth console test (owner)' });
    await owner.keyboard.press('Tab');
    expect(await isFocused(owner.getByRole('button', { name: 'Approve' }))).toBe(true);
    await owner.keyboard.press('Enter');

    const answer = await backAtTheApp(owner);
    expect(answer.get('state')).toBe(approved.state);
    expect(answer.get('error')).toBeNull();
    expect(answer.get('code')).toMatch(/^crm_oac_/);
    expect(answer.get('iss')).toBeTruthy();
    approved.code = answer.get('code') as string;
    expect(await grantsOf(own.tenantId)).toEqual([
      {
        client_id: own.clientId,
        client_name: APP,
        scopes: ['mcp:ingest:leads', 'mcp:read:leads'],
        user_id: own.ownerId,
        revoked_at: null,
      },
    ]);
    expect(await grantsOf(own.adminTenantId)).toEqual([]);
  });

  it('the code gives the app a token the official MCP client writes a lead with', async () => {
    const res = await tokenRequest({
      grant_type: 'authorization_code',
      code: approved.code,
      redirect_uri: callback(),
      client_id: own.clientId,
      code_verifier: approved.verifier,
    });
    expect(res.status).toBe(200);
    const token = (await res.json()) as {
      access_token: string;
      refresh_token: string;
      token_type: string;
    };
    expect(token.token_type).toBe('Bearer');
    expect(token.access_token).toMatch(/^crm_oat_/);
    own.accessToken = token.access_token;
    own.refreshToken = token.refresh_token;
    const client = await mcpClient(own.accessToken);
    const result = await client.callTool({
      name: 'ingest_leads',
      arguments: { records: [{ email: 'oauth-lead@oauth.test', first_name: 'OAuth' }] },
    });
    expect(result.structuredContent).toMatchObject({ imported: 1, failed: 0 });
    await client.close();
  });

  it('says an answered request has expired, with nothing to approve', async () => {
    await owner.goto(answeredConsentUrl);
    await owner
      .getByRole('alert')
      .getByText(
        'This sign-in request has expired or was already answered; start again from your app.',
      )
      .waitFor();
    expect(await owner.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expectAxeClean(owner);
  });

  it('a denial sends access_denied back to the app and grants nothing', async () => {
    const { challenge, state } = pkce();
    await owner.goto(authorizeUrl(challenge, state));
    await owner.getByRole('heading', { name: `Allow ${APP} to use your CRM?` }).waitFor();
    await owner.getByRole('button', { name: 'Deny' }).click();
    const answer = await backAtTheApp(owner);
    expect(answer.get('error')).toBe('access_denied');
    expect(answer.get('state')).toBe(state);
    expect(answer.get('code')).toBeNull();
    expect((await grantsOf(own.tenantId)).length).toBe(1);
    expect(await grantsOf(own.adminTenantId)).toEqual([]);
  });

  it('a member who manages no workspace is told why and cannot approve, but can deny', async () => {
    const { challenge, state } = pkce();
    await member.goto(authorizeUrl(challenge, state));
    await member.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signInThroughConsole(member, own.memberEmail, PASSWORD);
    await member.getByRole('heading', { name: `Allow ${APP} to use your CRM?` }).waitFor();
    await member.getByText(/Only the owners and admins of a workspace can connect apps/).waitFor();
    expect(await member.getByLabel('Workspace').count()).toBe(0);
    expect(await member.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    await expectAxeClean(member);
    await member.getByRole('button', { name: 'Deny' }).click();
    const answer = await backAtTheApp(member);
    expect(answer.get('error')).toBe('access_denied');
    expect(answer.get('state')).toBe(state);
    expect((await grantsOf(own.tenantId)).length).toBe(1);
  });
});

describe('Connected apps on the MCP keys screen', () => {
  it('a member is told the list is for owners and admins, and the console does not ask for it', async () => {
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (path(request.url()) === '/api/mcp/connections') asked.push(request.url());
    };
    member.on('request', onRequest);
    await member.goto('/mcp-keys');
    const section = member.getByRole('region', { name: 'Connected apps' });
    await section
      .getByText("Apps connected with OAuth are listed for the tenant's owners and admins.")
      .waitFor();
    // The keys' list (every member may read it) has answered by now.
    await member
      .getByRole('table', { name: /^Keys/ })
      .or(member.getByText(/^No keys yet/))
      .waitFor();
    member.off('request', onRequest);
    expect(asked).toEqual([]);
    expect(await section.getByRole('alert').count()).toBe(0);
    expect(await section.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    await expectAxeClean(member);
  });

  it('lists the approved app; the owner revokes it after a confirmation and its token is refused', async () => {
    expect(await mcpStatus(own.accessToken)).toBe(200);
    await owner.goto('/mcp-keys');
    await owner.getByRole('heading', { name: 'MCP keys', level: 1 }).waitFor();
    // The key form offers every scope, the read ones too.
    await owner.getByRole('checkbox', { name: /mcp:read:deals/ }).waitFor();
    const section = owner.getByRole('region', { name: 'Connected apps' });
    // The other tenant the owner manages has no app connected.
    const tenant = owner.getByLabel('Tenant', { exact: true });
    await tenant.selectOption({ label: 'Beta administered (admin)' });
    await section
      .getByText('No app is connected yet. Apps that sign in with OAuth appear here.')
      .waitFor();
    await tenant.selectOption({ label: 'Acme OAuth console test (owner)' });
    const row = section.getByRole('row', { name: new RegExp(APP) });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain(new URL(stack.url).hostname);
    expect(text).toContain('mcp:ingest:leads, mcp:read:leads');
    expect(text).toMatch(/you,/);
    // Used: the lead written with its token.
    expect(text).not.toMatch(/Never/);
    expect(text).toMatch(/Active/);
    expect(await owner.content()).not.toContain(own.accessToken);
    await saveScreenshot(owner, 'console-connected-apps', { fullPage: true });
    await expectAxeClean(owner);

    await row.getByRole('button', { name: `Revoke app ${APP}` }).click();
    const dialog = owner.getByRole('dialog', { name: `Revoke “${APP}”?` });
    await dialog.getByRole('button', { name: 'Revoke app' }).click();
    await row.getByText(/^Revoked /).waitFor();
    expect(await row.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    const [grant] = await grantsOf(own.tenantId);
    expect(grant.revoked_at).not.toBeNull();
    expect(await mcpStatus(own.accessToken)).toBe(401);
    // The app cannot get a new token either: its refresh token died with the grant.
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: own.refreshToken,
      client_id: own.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    expect(ownerProblems).toEqual([]);
    expect(memberProblems).toEqual([]);
  });
});
