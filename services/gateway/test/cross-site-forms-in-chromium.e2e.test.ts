import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  addSessionCookies,
  createAccount,
  createTenant,
  launchChromium,
  sessionClient,
  signIn,
  startEchoService,
  usePlatformBehindGateway,
  type EchoService,
} from '@crm/test-kit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { service as automation } from '../../automation/src/main';

/*
 * Cross-site request forgery, in real headless Chromium (Debian's `chromium`) against a real
 * gateway in front of a real automation service. The attacker owns a tenant and invites the
 * victim; the victim, signed in, opens the attacker's page on another port of 127.0.0.1. That
 * page is "same site" (ports do not separate sites), so the browser sends the victim's
 * `SameSite=Lax` session cookie with its form posts. Each forged post (accepting the
 * invitation, which would make the attacker's tenant the victim's default; rotating or testing
 * a workflow's secret; signing out) is refused and changes nothing in the database. The same
 * requests from a page of the platform's own origin still work.
 */
const stack = usePlatformBehindGateway([
  { service: automation, env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } },
]);
let browser: Browser;
let context: BrowserContext;
let page: Page;
let attackerSite: Server;
let attackerUrl: string;
let receiver: EchoService;
const victim = { id: '', email: '', tenantId: '', cookie: '' };
let attackerTenantId = '';
let invitationId = '';
let workflowId = '';

/** The attacker's page: one form posting to `action` on the gateway, and a button to send it. */
function startAttackerSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const action = new URL(req.url ?? '/', 'http://x').searchParams.get('action') ?? '';
    const escaped = action.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>Win a prize</title>` +
        `<form method="post" action="${escaped}"><button>Claim your prize</button></form>`,
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  const db = stack.database;
  receiver = await startEchoService();
  const attacker = await createAccount(db, 'attacker');
  attackerTenantId = (await createTenant(db, 'attacker tenant')).id;
  await addMember(db, attackerTenantId, attacker.id, 'owner');
  const victimAccount = await createAccount(db, 'victim');
  victim.id = victimAccount.id;
  victim.email = victimAccount.email;
  victim.tenantId = (await createTenant(db, 'victim tenant')).id;
  await addMember(db, victim.tenantId, victim.id, 'owner');
  victim.cookie = await signIn(stack.gateway.app, victim.email);

  const invited = await sessionClient(
    stack.url,
    await signIn(stack.gateway.app, attacker.email),
  ).post('/api/auth/members', { email: victim.email, role: 'member' });
  expect(invited.status).toBe(201);
  invitationId = invited.body.data.invitation.invitationId;

  const created = await sessionClient(stack.url, victim.cookie).post('/api/automations/workflows', {
    name: 'Deals to our hook',
    trigger: { event: 'deal.created' },
    nodes: [{ type: 'webhook', config: { url: `${receiver.url}/hook`, method: 'POST' } }],
  });
  expect(created.status).toBe(201);
  workflowId = created.body.data.workflow.id;

  attackerSite = await startAttackerSite();
  attackerUrl = `http://127.0.0.1:${(attackerSite.address() as AddressInfo).port}`;
  browser = await launchChromium();
  context = await browser.newContext();
  await addSessionCookies(context, victim.cookie, stack.url);
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attackerSite?.close(resolve));
  await receiver?.close();
});

/** What the forged posts would change: the victim's memberships, the invitation, the secret. */
function victimState() {
  return withSystemScope(stack.database.db, async (trx) => ({
    memberships: await trx
      .selectFrom('tenant_users')
      .select(['tenant_id', 'status'])
      .where('user_id', '=', victim.id)
      .orderBy('tenant_id')
      .execute(),
    invitation: await trx
      .selectFrom('tenant_invitations')
      .select(['accepted_at', 'accepted_by'])
      .where('id', '=', invitationId)
      .executeTakeFirstOrThrow(),
    secret: (
      await trx
        .selectFrom('automation_workflows')
        .select('signing_secret_sealed')
        .where('id', '=', workflowId)
        .executeTakeFirstOrThrow()
    ).signing_secret_sealed,
    testRuns: (
      await trx
        .selectFrom('workflow_runs')
        .select('id')
        .where('workflow_id', '=', workflowId)
        .execute()
    ).length,
    sessions: (
      await trx.selectFrom('sessions').select('user_id').where('user_id', '=', victim.id).execute()
    ).length,
  }));
}

/** Opens the attacker's page for `path` and presses its button; the gateway's answer. */
async function forgedPost(path: string) {
  const target = `${stack.url}${path}`;
  await page.goto(`${attackerUrl}/?action=${encodeURIComponent(target)}`);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === target && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Claim your prize' }).click(),
  ]);
  return { status: response.status(), body: await response.json(), request: response.request() };
}

/**
 * A `fetch` from a page of the gateway's own origin, as the platform's console makes it, in the
 * victim's own tenant (once the invitation is accepted, the newest membership is the default).
 */
async function ownOriginPost(path: string) {
  if (!page.url().startsWith(stack.url)) await page.goto(`${stack.url}/api/health`);
  return page.evaluate(
    async ([p, tenantId]) => {
      const res = await fetch(p, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'x-tenant-id': tenantId },
      });
      return { status: res.status, body: await res.json() };
    },
    [path, victim.tenantId],
  );
}

const FORGED = () => [
  `/api/auth/invitations/${invitationId}/accept`,
  `/api/automations/workflows/${workflowId}/rotate-secret`,
  `/api/automations/workflows/${workflowId}/test`,
  '/api/auth/sign-out',
];

it('refuses every forged form post from a same-site page, and nothing changes', async () => {
  const before = await victimState();
  expect(before.memberships).toEqual([{ tenant_id: victim.tenantId, status: 'active' }]);
  expect(before.sessions).toBe(1);
  for (const path of FORGED()) {
    const { status, body, request } = await forgedPost(path);
    // The browser did send the victim's cookie: only the gateway's check stood in the way.
    expect(await request.headerValue('cookie')).toContain('crm_session=');
    expect(await request.headerValue('sec-fetch-site')).toBe('same-site');
    expect({ path, status, body }).toEqual({
      path,
      status: 403,
      body: expect.objectContaining({
        success: false,
        code: 'FORBIDDEN',
        error: 'Cross-site request refused',
        details: { origin: attackerUrl, secFetchSite: 'same-site' },
      }),
    });
  }
  expect(await victimState()).toEqual(before);
  expect(receiver.received).toEqual([]);
});

it('the same requests from the platform’s own origin work', async () => {
  const before = await victimState();
  const accepted = await ownOriginPost(`/api/auth/invitations/${invitationId}/accept`);
  expect(accepted).toMatchObject({ status: 200, body: { success: true } });
  const rotated = await ownOriginPost(`/api/automations/workflows/${workflowId}/rotate-secret`);
  expect(rotated).toMatchObject({ status: 200, body: { success: true } });
  const tested = await ownOriginPost(`/api/automations/workflows/${workflowId}/test`);
  expect(tested).toMatchObject({ status: 200, body: { success: true } });

  const after = await victimState();
  expect(after.memberships).toHaveLength(2);
  expect(after.memberships).toContainEqual({ tenant_id: attackerTenantId, status: 'active' });
  expect(after.invitation.accepted_by).toBe(victim.id);
  expect(after.secret).not.toBe(before.secret);
  expect(after.testRuns).toBe(before.testRuns + 1);
  expect(receiver.received.map((r) => r.url)).toEqual(['/hook']);

  const signedOut = await ownOriginPost('/api/auth/sign-out');
  expect(signedOut).toMatchObject({ status: 200, body: { success: true } });
  expect((await victimState()).sessions).toBe(0);
});
