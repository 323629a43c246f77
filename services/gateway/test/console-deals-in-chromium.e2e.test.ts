import { withSystemScope } from '@crm/shared/db';
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
 * The console's Deals screen in real headless Chromium (Debian's `chromium`, driven by
 * playwright-core), through a real gateway in front of a real crm-api: the pipeline board by
 * stage with the tenant's deals only, a card moved from the keyboard (its Stage select) and by
 * native drag and drop, each move checked in Postgres, a failed move put back, a deal created
 * through the form. A screenshot goes to artifacts/console-deals.png.
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];
const owner = { email: '', tenantId: '' };
let refusedOnPurpose = '';

const OWN_DEALS = [
  { title: 'Acme renewal', value: '1200', currency: 'USD', stage: 'qualified' },
  { title: 'Acme pilot', value: '300.50', currency: 'EUR', stage: 'lead' },
  { title: 'Acme expansion', value: '5000', currency: 'USD', stage: 'proposal' },
];
const OTHER_DEALS = [{ title: 'Globex secret deal', value: '999', stage: 'qualified' }];

async function tenantWithDeals(name: string, deals: object[]) {
  const tenant = await createTenant(database, name);
  const user = await createAccount(database, 'deals');
  await addMember(database, tenant.id, user.id, 'owner');
  const cookie = await signIn(stack.gateway.app, user.email);
  const client = sessionClient(stack.url, cookie);
  for (const deal of deals) {
    const created = await client.post('/api/crm/deals', deal);
    expect(created.status).toBe(201);
  }
  return { email: user.email, tenantId: tenant.id };
}

/** The deal's row as Postgres has it (read past RLS). */
async function dealRow(title: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_deals')
      .select(['tenant_id', 'title', 'value', 'currency', 'stage'])
      .where('tenant_id', '=', owner.tenantId)
      .where('title', '=', title)
      .executeTakeFirst(),
  );
}

/** Waits until the row's stage is `stage` (the PATCH has been answered by then). */
async function stageInDb(title: string, stage: string) {
  for (let i = 0; i < 50; i++) {
    if ((await dealRow(title))?.stage === stage) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await dealRow(title))?.stage).toBe(stage);
}

const column = (name: string) => page.getByRole('region', { name, exact: true });
const card = (title: string) => page.getByRole('listitem', { name: title, exact: true });

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  Object.assign(owner, await tenantWithDeals('Acme deals test', OWN_DEALS));
  await tenantWithDeals('Globex deals test', OTHER_DEALS);
  const context = await browser.newContext({ baseURL: stack.url });
  page = await context.newPage();
  // Signed out, the console's GET /api/auth/me is answered 401; the move refused on purpose is
  // answered 500. A request cancelled on purpose is no problem either.
  problems = watchForProblems(page, {
    origin: stack.url,
    allow: {
      response: (url, status) =>
        isSignedOutAnswer(url, status) || (status === 500 && url === refusedOnPurpose),
      aborted: true,
    },
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await database.close();
});

describe('the Deals screen', () => {
  it('signs in and opens Deals from the main navigation', async () => {
    await page.goto('/sign-in');
    await signInThroughConsole(page, owner.email, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Deals' })
      .click();
    await page.getByRole('heading', { name: 'Deals', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/deals');
  });

  it("shows a column per stage with the tenant's deals in their stage, never another tenant's", async () => {
    await card('Acme renewal').waitFor();
    expect(await page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual([
      'Lead',
      'Qualified',
      'Proposal',
      'Negotiation',
      'Won',
      'Lost',
    ]);
    expect(await column('Qualified').getByRole('listitem').allInnerTexts()).toEqual([
      expect.stringMatching(/^Acme renewal\s+\$1,200\.00/),
    ]);
    expect(await column('Lead').innerText()).toMatch(/Acme pilot\s+€300\.50/);
    expect(await column('Proposal').innerText()).toContain('Acme expansion');
    expect(await page.content()).not.toContain('Globex');
    await saveScreenshot(page, 'console-deals');
  });

  it('moves a card to another stage from the keyboard, and Postgres has the new stage', async () => {
    const select = page.getByLabel('Stage of Acme renewal');
    await select.focus();
    const patched = page.waitForResponse(
      (r) => r.request().method() === 'PATCH' && r.url().includes('/api/crm/deals/'),
    );
    // Qualified → Proposal: the next option of the focused native select.
    await page.keyboard.press('ArrowDown');
    expect((await patched).status()).toBe(200);
    await column('Proposal').getByRole('listitem', { name: 'Acme renewal' }).waitFor();
    expect(await column('Qualified').getByRole('listitem').count()).toBe(0);
    await stageInDb('Acme renewal', 'proposal');
  });

  it('moves a card by dragging it onto another column, and Postgres has the new stage', async () => {
    const patched = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await card('Acme pilot').dragTo(column('Negotiation'));
    expect((await patched).status()).toBe(200);
    await column('Negotiation').getByRole('listitem', { name: 'Acme pilot' }).waitFor();
    await stageInDb('Acme pilot', 'negotiation');
  });

  it('puts the card back and says so when the server refuses a move', async () => {
    await page.route(
      '**/api/crm/deals/*',
      async (route) => {
        refusedOnPurpose = route.request().url();
        await route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ success: false, error: 'Deal store unavailable', code: 'X' }),
        });
      },
      { times: 1 },
    );
    await page.getByLabel('Stage of Acme expansion').selectOption('won');
    await page
      .getByRole('alert')
      .getByText(/Could not move .Acme expansion. to Won/)
      .waitFor();
    await column('Proposal').getByRole('listitem', { name: 'Acme expansion' }).waitFor();
    expect(await column('Won').getByRole('listitem').count()).toBe(0);
    expect((await dealRow('Acme expansion'))?.stage).toBe('proposal');
  });

  it('creates a deal through the form: on the board and in Postgres', async () => {
    await page.getByRole('button', { name: 'Add deal' }).click();
    await page.getByText('Give the deal a title').waitFor();
    await page.getByLabel('Title').fill('Acme new office');
    await page.getByLabel('Value (USD)').fill('99.9');
    await page.getByLabel('Stage', { exact: true }).selectOption('won');
    const created = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Add deal' }).click();
    expect((await created).status()).toBe(201);
    await column('Won').getByRole('listitem', { name: 'Acme new office' }).waitFor();
    expect(await column('Won').innerText()).toContain('$99.90');
    expect(await dealRow('Acme new office')).toEqual({
      tenant_id: owner.tenantId,
      title: 'Acme new office',
      value: '99.90',
      currency: 'USD',
      stage: 'won',
    });
    expect(await page.getByLabel('Title').inputValue()).toBe('');
    await saveScreenshot(page, 'console-deals-moved');
  });

  it('has no axe violation rated serious or critical, and never showed another tenant', async () => {
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(await page.content()).not.toContain('Globex');
  });

  it('had no console errors, failed or off-origin requests', () => {
    expect(problems).toEqual([]);
  });
});
