import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testDb, useServiceBehindGateway, tenantSession } from '@crm/test-kit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { service as crmApi } from '../../crm-api/src/main';

/*
 * /api-docs in real headless Chromium (Debian's `chromium`, driven by playwright-core), through
 * a real gateway in front of a real crm-api: the page renders without console errors or failed
 * requests, lists the resources and the rate limit, copies a curl snippet that curl
 * runs, and "try it" calls the API with the signed-in user's cookie. `.ci/run` installs
 * chromium when it is missing (`apt-get install -y chromium`).
 */
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '../../../artifacts');

const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let sessionCookie: string;
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: apt-get install -y chromium (see CONTRIBUTING.md, Tests)`,
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const { cookie } = await tenantSession(stack, database);
  sessionCookie = cookie;
  const context = await browser.newContext({ baseURL: stack.url });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  await context.addCookies(
    cookie.split('; ').map((pair) => {
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: stack.url };
    }),
  );
  page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
    if (!r.url().startsWith(stack.url)) problems.push(`off-origin: ${r.url()}`);
  });
  await page.goto('/api-docs');
  await page.locator('.swagger-ui .info').waitFor();
  await page.locator('.opblock').first().waitFor();
}, 60_000);

afterAll(async () => {
  if (page) {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'api-docs.png'), fullPage: true });
  }
  await browser?.close();
  await database.close();
});

/** Expands an operation, presses "Try it out" and "Execute", and waits for its response. */
async function tryIt(method: string, path: string) {
  const op = page.locator(`.opblock-${method}`, {
    has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
  });
  await op.locator('.opblock-summary').first().click();
  await op.locator('button.try-out__btn').click();
  await op.locator('button.execute').click();
  await op.locator('.live-responses-table tr.response .response-col_status').first().waitFor();
  return op;
}

it('renders the reference with every operation grouped by resource', async () => {
  const tags = await page.locator('.opblock-tag').allInnerTexts();
  for (const tag of [
    'Leads',
    'Deals',
    'Contacts',
    'Products',
    'Activities',
    'Forms',
    'Auth',
    'Integrations',
  ]) {
    expect(tags.some((t) => t.startsWith(tag))).toBe(true);
  }
});

it('lists the resources as callable and the rate limit from the gateway config', async () => {
  const info = await page.locator('.swagger-ui .info').innerText();
  for (const resource of ['Contacts', 'Leads', 'Deals', 'Activities', 'Automations']) {
    const row = page.locator('.info tr', { hasText: resource });
    expect(await row.innerText()).toMatch(new RegExp(`^${resource}\\s+callable: `));
  }
  expect(info).not.toMatch(/planned/);
  // The test gateway's own configured limit, not the default: the page shows the config's.
  const limit = stack.gateway.config.RATE_LIMIT_DEFAULT_PER_MINUTE.toLocaleString('en-US');
  expect(info).toContain(`Rate limit: ${limit} requests per minute per tenant`);
});

it('copies a curl snippet for POST /api/v1/import/leads that curl runs', async () => {
  const op = await tryIt('post', '/api/v1/import/leads');
  const snippets = op.locator('.request-snippets');
  const titles = await snippets.locator('.btn').allInnerTexts();
  expect(titles).toEqual(
    expect.arrayContaining(['curl (bash)', 'JavaScript (fetch)', 'Node', 'Python (requests)']),
  );
  await snippets.locator('.copy-to-clipboard button').first().click();
  const copied = String(await page.evaluate('navigator.clipboard.readText()'));
  expect(copied).toMatch(/^curl -X POST '.*\/api\/v1\/import\/leads'/);
  // It is a curl command as written: with the session cookie filled in, it imports the lead.
  // The session's cookies (crm_session, and the tenant choice) where the snippet says.
  const command = copied.replace('crm_session=<your session cookie>', sessionCookie);
  // Asynchronously: the gateway answering curl runs in this process.
  const { stdout: out } = await promisify(execFile)(
    'bash',
    ['-c', `${command} --max-time 20 -s -w '\\n%{http_code}'`],
    { encoding: 'utf8' },
  );
  const [body, status] = [
    out.slice(0, out.lastIndexOf('\n')),
    out.slice(out.lastIndexOf('\n') + 1),
  ];
  expect(status).toBe('200');
  expect(JSON.parse(body)).toMatchObject({ success: true, imported: 1, failed: 0 });
});

it('a signed-in "try it" of GET /api/crm/deals answers 200 from the page', async () => {
  const op = await tryIt('get', '/api/crm/deals');
  const status = await op
    .locator('.live-responses-table tr.response .response-col_status')
    .first()
    .innerText();
  expect(status.trim()).toBe('200');
  expect(await op.locator('.live-responses-table .microlight').first().innerText()).toContain(
    '"deals"',
  );
});

it('had no console errors, failed or off-origin requests', () => {
  expect(problems).toEqual([]);
});
