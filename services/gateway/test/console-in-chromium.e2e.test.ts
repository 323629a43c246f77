import {
  addMember,
  buildConsoleIfMissing,
  createAccount,
  createTenant,
  isSignedOutAnswer,
  launchChromium,
  PASSWORD,
  saveScreenshot,
  seriousAxeViolations,
  sessionClient,
  signIn,
  signInThroughConsole,
  testDb,
  useServiceBehindGateway,
  watchForProblems,
} from '@crm/test-kit';
import type { Browser, Page } from 'playwright-core';
import { service as crmApi } from '../../crm-api/src/main';

/*
 * The web console in real headless Chromium (Debian's `chromium`, driven by playwright-core),
 * through a real gateway in front of a real crm-api: served at / and at its deep links under a
 * strict Content-Security-Policy, signed in through its labelled form, the main navigation,
 * the leads of the signed-in user's tenant only (never another tenant's), search, the detail
 * panel, an invitation accepted and the tenant switched, sign-out; no console error, no axe
 * violation rated serious or critical. Screenshots of each screen go to artifacts/console-*.png.
 * The console is built first when services/console/dist is missing (`npm run build` builds it
 * too, as CI does).
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];
const owner = { email: '', tenantName: 'Acme console test' };
const other = { email: '', tenantName: 'Globex console test', cookie: '' };

const OWN_LEADS = [
  { email: 'alice.anders@acme.test', first_name: 'Alice', last_name: 'Anders', source: 'web' },
  { email: 'bob.brown@acme.test', first_name: 'Bob', last_name: 'Brown', source: 'fair' },
  {
    email: 'carol.clark@acme.test',
    first_name: 'Carol',
    last_name: 'Clark',
    source: 'web',
    status: 'qualified',
  },
];
const OTHER_LEADS = [{ email: 'mallory.other@globex.test', first_name: 'Mallory', source: 'web' }];

async function tenantWithLeads(
  name: string,
  leads: object[],
): Promise<{ email: string; cookie: string }> {
  const tenant = await createTenant(database, name);
  const user = await createAccount(database, 'console');
  await addMember(database, tenant.id, user.id, 'owner');
  const cookie = await signIn(stack.gateway.app, user.email);
  const imported = await sessionClient(stack.url, cookie).post('/api/v1/import/leads', { leads });
  expect(imported.body).toMatchObject({ imported: leads.length, failed: 0 });
  return { email: user.email, cookie };
}

/** Waits until the table body has `count` rows (with locators: the CSP forbids eval). */
async function rows(count: number) {
  await page.locator(`tbody tr:nth-child(${count})`).waitFor();
  await page.locator(`tbody tr:nth-child(${count + 1})`).waitFor({ state: 'detached' });
}

const leadEmails = () => page.getByRole('table').locator('tbody td:first-child').allInnerTexts();

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  owner.email = (await tenantWithLeads(owner.tenantName, OWN_LEADS)).email;
  Object.assign(other, await tenantWithLeads(other.tenantName, OTHER_LEADS));
  const context = await browser.newContext({ baseURL: stack.url });
  page = await context.newPage();
  // Signed out, the console asks GET /api/auth/me, and on /leads the opening page of leads
  // beside it, and is answered 401 (that is how it knows to show sign-in); Chromium logs each
  // answer as a console error. Every other 4xx, 5xx or
  // console error is a problem. A list request of a search the user has since changed is
  // cancelled on purpose.
  problems = watchForProblems(page, {
    origin: stack.url,
    allow: {
      response: isSignedOutAnswer,
      aborted: true,
    },
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await database.close();
});

describe('served by the gateway', () => {
  it('answers / and a deep link with the console page under a strict CSP', async () => {
    for (const path of ['/', '/leads', '/leads/not-a-lead/anything']) {
      const res = await fetch(`${stack.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('<div id="root">');
      // Every script of the page is a file of this origin: none inline.
      expect(html.match(/<script\b[^>]*>/g)?.every((tag) => / src="\//.test(tag))).toBe(true);
      const csp = res.headers.get('content-security-policy') ?? '';
      const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'));
      expect(scriptSrc?.trim()).toBe("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
    }
  });

  it('serves its hashed assets and leaves the API, the reference and missing files alone', async () => {
    const html = await (await fetch(`${stack.url}/`)).text();
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1] as string;
    const asset = await fetch(`${stack.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    for (const path of [
      '/api/nothing-here',
      '/api',
      '/api-docs/assets/nope.js',
      '/assets/nope.js',
    ]) {
      const res = await fetch(`${stack.url}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
      expect(await res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    expect((await fetch(`${stack.url}/api-docs`)).headers.get('content-security-policy')).toContain(
      "style-src 'self' 'unsafe-inline'",
    );
  });
});

describe('in the browser', () => {
  it('sends a signed-out visitor to sign-in, then signs in with the labelled fields', async () => {
    await page.goto('/leads');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await saveScreenshot(page, 'console-sign-in');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await signInThroughConsole(page, owner.email, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/leads');
  });

  it('has the main navigation landmark with a link per screen', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual([
      'Leads',
      'Deals',
      'Contacts',
      'Products',
      'Conversations',
      'Activities',
      'Forms',
      'Exports',
      'Integrations',
      'Workflows',
      'MCP keys',
      'Members',
      'Events',
    ]);
  });

  it("shows the tenant's leads in a table with column headers, and no other tenant's", async () => {
    await page.getByRole('cell', { name: 'alice.anders@acme.test' }).waitFor();
    const headers = await page.getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.replace(/[▲▼]/g, '').trim())).toEqual([
      'Email',
      'First name',
      'Last name',
      'Status',
      'Source',
      'Created',
    ]);
    expect((await leadEmails()).sort()).toEqual(OWN_LEADS.map((l) => l.email).sort());
    expect(await page.content()).not.toContain('mallory');
    await saveScreenshot(page, 'console-leads');
  });

  it('sorts by a column header, from the keyboard', async () => {
    const emailHeader = page.getByRole('columnheader', { name: /Email/ });
    await emailHeader.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await page.locator('th[aria-sort="ascending"]', { hasText: 'Email' }).waitFor();
    await page
      .locator('tbody tr:first-child td:first-child', { hasText: 'alice.anders@acme.test' })
      .waitFor();
    expect(await leadEmails()).toEqual(OWN_LEADS.map((l) => l.email));
  });

  it('narrows the list with Search, the status and the source filter', async () => {
    await page.getByLabel('Search').fill('bro');
    await rows(1);
    expect(await leadEmails()).toEqual(['bob.brown@acme.test']);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Source').fill('web');
    await rows(2);
    expect((await leadEmails()).sort()).toEqual([
      'alice.anders@acme.test',
      'carol.clark@acme.test',
    ]);
    await page.getByLabel('Status').selectOption('qualified');
    await rows(1);
    expect(await leadEmails()).toEqual(['carol.clark@acme.test']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Search').fill('nobody-matches-this');
    await page.getByText('No lead matches these filters.').waitFor();
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Source').fill('');
    await rows(3);
  });

  it("opens a lead's detail panel at its own address", async () => {
    await page.getByRole('link', { name: 'bob.brown@acme.test' }).click();
    const panel = page.getByRole('complementary', { name: 'Bob Brown' });
    await panel.waitFor();
    expect(await panel.innerText()).toMatch(/Source\s+fair/);
    expect(new URL(page.url()).pathname).toMatch(/^\/leads\/[0-9a-f-]{36}$/);
    await saveScreenshot(page, 'console-lead-detail');
  });

  it('has no axe violation rated serious or critical on the leads screen', async () => {
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('accepts an invitation, then the tenant switcher shows the other tenant and only its leads', async () => {
    const invited = await sessionClient(stack.url, other.cookie).post('/api/auth/members', {
      email: owner.email,
      role: 'member',
    });
    expect(invited.status).toBe(201);
    await page.getByRole('link', { name: /Invitations/ }).click();
    await page.getByRole('heading', { name: 'Invitations' }).waitFor();
    await page.getByText(other.tenantName).waitFor();
    await saveScreenshot(page, 'console-invitations');
    await page
      .getByRole('button', { name: `Accept the invitation to ${other.tenantName}` })
      .click();
    await page.getByText('No pending invitations.').waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Leads' })
      .click();
    await page.getByRole('cell', { name: 'alice.anders@acme.test' }).waitFor();
    const tenant = page.getByLabel('Tenant');
    const switched = page.waitForResponse((r) => r.url().endsWith('/api/auth/active-tenant'));
    await tenant.selectOption({ label: `${other.tenantName} (member)` });
    expect((await switched).status()).toBe(200);
    await page.getByRole('cell', { name: 'mallory.other@globex.test' }).waitFor();
    expect(await leadEmails()).toEqual(['mallory.other@globex.test']);
  });

  it('signs out back to the sign-in form', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/leads');
    await page.getByLabel('Email').waitFor();
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });

  it('signs up through the form into a new, empty tenant', async () => {
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Sign up' }).waitFor();
    await page.getByRole('button', { name: 'Create account' }).click();
    // Checked before anything is sent: each field says what it needs.
    await page.getByText('At least 8 characters').waitFor();
    await page.getByLabel('Your name').fill('Nova Newcomer');
    await page.getByLabel('Email').fill(`nova-${Date.now()}@example.test`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Organisation').fill('Nova console test');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText(/^No leads yet/).waitFor();
    expect(await page.getByLabel('Tenant').inputValue()).not.toBe('');
    expect(await page.getByLabel('Tenant').innerText()).toContain('Nova console test (owner)');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('loads the next pages as the table scrolls, keeping only the visible rows in the page', async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({
      email: `bulk-${String(i).padStart(3, '0')}@bulk.test`,
      first_name: `Bulk ${i}`,
    }));
    const bulk = await tenantWithLeads('Bulk console test', many);
    await signInThroughConsole(page, bulk.email, PASSWORD);
    await page.getByText('50 of 130 leads shown').waitFor();
    // From the keyboard: the table's scroll area takes focus, End scrolls it to the bottom.
    await page.getByRole('region', { name: 'Leads list' }).focus();
    for (const shown of [100, 130]) {
      await page.keyboard.press('End');
      await page.getByText(`${shown} of 130 leads shown`).waitFor();
    }
    expect(await page.locator('tbody tr').count()).toBeLessThan(60);
    expect(
      await page
        .getByRole('cell', { name: /@bulk\.test$/ })
        .last()
        .isVisible(),
    ).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('had no console errors, failed or off-origin requests', () => {
    expect(problems).toEqual([]);
  });
});
