import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  addSessionCookies,
  launchChromium,
  saveScreenshot,
  testDb,
  useServiceBehindGateway,
  tenantSession,
  watchForProblems,
} from '@crm/test-kit';
import type { Browser, Page } from 'playwright-core';
import { service as crmApi } from '../../crm-api/src/main';

/*
 * /api-docs in real headless Chromium (Debian's `chromium`, driven by playwright-core), through
 * a real gateway in front of a real crm-api: the page renders without console errors or failed
 * requests, lists the resources and the rate limit, copies a curl snippet that curl
 * runs, and "try it" calls the API with the signed-in user's cookie. `.ci/run` installs
 * chromium when it is missing (`apt-get install -y chromium`).
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let sessionCookie: string;
let problems: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const { cookie } = await tenantSession(stack, database);
  sessionCookie = cookie;
  const context = await browser.newContext({ baseURL: stack.url });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  await addSessionCookies(context, cookie, stack.url);
  page = await context.newPage();
  // Nothing is expected to fail here: every console error, 4xx, 5xx or failed request counts.
  problems = watchForProblems(page, { origin: stack.url });
  await page.goto('/api-docs');
  await page.locator('.swagger-ui .info').waitFor();
  await page.locator('.opblock').first().waitFor();
}, 60_000);

afterAll(async () => {
  if (page) await saveScreenshot(page, 'api-docs', { fullPage: true });
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
