import { withSystemScope, withTenant } from '@crm/shared/db';
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
 * The console's writes in real headless Chromium (Debian's `chromium`, driven by playwright-core),
 * through a real gateway in front of a real crm-api, each checked in Postgres: a lead created
 * from the New lead form, a lead's email changed (and a duplicate refused next to the field), a
 * lead deleted after its confirmation; a lead's deals and its timeline paged by "Load more";
 * the deals list filtered by stage and owner, a deal changed through its form. Then a viewer of
 * the same tenant: no write control on any record screen, and the API answering 403 to a write
 * sent from the viewer's own page. Screenshots go to artifacts/console-*.png.
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];
const acme = { tenantId: '', ownerId: '', ownerEmail: '', viewerEmail: '', dana: '', frank: '' };

/** A lead's row as Postgres has it (read past RLS), by email; undefined when there is none. */
function leadRow(email: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_leads')
      .select(['id', 'tenant_id', 'email', 'first_name', 'last_name', 'status', 'source'])
      .where('tenant_id', '=', acme.tenantId)
      .where('email', '=', email)
      .executeTakeFirst(),
  );
}

function dealRow(title: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_deals')
      .select(['title', 'value', 'stage', 'assigned_to'])
      .where('tenant_id', '=', acme.tenantId)
      .where('title', '=', title)
      .executeTakeFirst(),
  );
}

/** Waits, a bounded number of times, until `read` gives `expected` (then the caller asserts). */
async function settled<T>(read: () => Promise<T>, expected: T): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const value = await read();
    if (JSON.stringify(value) === JSON.stringify(expected)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return read();
}

/** The first column of the table on screen (lead emails, deal titles), sorted. */
const firstColumn = async (p: Page) =>
  (await p.getByRole('table').locator('tbody td:first-child').allInnerTexts()).sort();

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();

  const tenant = await createTenant(database, 'Acme writes test');
  const owner = await createAccount(database, 'writes-owner');
  const viewer = await createAccount(database, 'writes-viewer');
  await addMember(database, tenant.id, owner.id, 'owner');
  await addMember(database, tenant.id, viewer.id, 'viewer');
  Object.assign(acme, {
    tenantId: tenant.id,
    ownerId: owner.id,
    ownerEmail: owner.email,
    viewerEmail: viewer.email,
  });
  const client = sessionClient(stack.url, await signIn(stack.gateway.app, owner.email));
  const imported = await client.post('/api/v1/import/leads', {
    leads: [
      { email: 'dana@acme.test', first_name: 'Dana', last_name: 'Diaz', source: 'fair' },
      { email: 'erin@acme.test', first_name: 'Erin', last_name: 'Evans' },
      { email: 'frank@acme.test', first_name: 'Frank', last_name: 'Foster' },
    ],
  });
  expect(imported.body).toMatchObject({ imported: 3, failed: 0 });
  const ids = imported.body.data as Array<{ id: string; email: string }>;
  acme.dana = ids.find((l) => l.email === 'dana@acme.test')?.id as string;
  acme.frank = ids.find((l) => l.email === 'frank@acme.test')?.id as string;

  for (const deal of [
    { title: 'Acme pilot', stage: 'lead' },
    { title: 'Acme renewal', stage: 'won', value: '1200' },
    { title: 'Acme expansion', stage: 'proposal', value: '5000' },
    { title: 'Dana pilot', stage: 'proposal', value: '800', lead_id: acme.dana },
    { title: 'Owned pilot', stage: 'qualified', assigned_to: owner.id },
  ]) {
    expect((await client.post('/api/crm/deals', deal)).status).toBe(201);
  }
  // 25 activities of Dana's, a day apart: with her deal, 26 timeline items, two pages of 20.
  // The oldest, "Intro call", is on the second page only.
  await withTenant(database.db, tenant.id, (trx) =>
    trx
      .insertInto('crm_activities')
      .values(
        Array.from({ length: 25 }, (_, i) => ({
          tenant_id: tenant.id,
          type: i === 0 ? 'call' : 'note',
          subject: i === 0 ? 'Intro call' : `Follow-up ${i}`,
          occurred_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
          lead_id: acme.dana,
          custom_fields: '{}',
        })),
      )
      .execute(),
  );

  page = await (await browser.newContext({ baseURL: stack.url })).newPage();
  // Signed out, GET /api/auth/me is answered 401; the duplicate email is answered 409 on purpose.
  problems = watchForProblems(page, {
    origin: stack.url,
    allow: {
      response: (url, status) =>
        isSignedOutAnswer(url, status) ||
        (status === 409 && new URL(url).pathname === `/api/crm/leads/${acme.dana}`),
      aborted: true,
    },
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await database.close();
});

describe('an owner writing leads', () => {
  it('signs in and sees the leads with a New lead link', async () => {
    await page.goto('/sign-in');
    await signInThroughConsole(page, acme.ownerEmail, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'dana@acme.test' }).waitFor();
    expect(await firstColumn(page)).toEqual([
      'dana@acme.test',
      'erin@acme.test',
      'frank@acme.test',
    ]);
  });

  it('creates a lead from the New lead form: validated first, then in the list and in Postgres', async () => {
    await page.getByRole('link', { name: 'New lead' }).click();
    const form = page.getByRole('form', { name: 'New lead' });
    await form.waitFor();
    expect(new URL(page.url()).pathname).toBe('/leads/new');
    await form.getByRole('button', { name: 'Create lead' }).click();
    await form.getByText('Email is required').waitFor();
    await form.getByLabel('Email').fill('not an email');
    await form.getByRole('button', { name: 'Create lead' }).click();
    await form.getByText('Invalid email').waitFor();
    expect(await form.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await saveScreenshot(page, 'console-lead-new');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await form.getByLabel('Email').fill(' Grace@Acme.test ');
    await form.getByLabel('First name').fill('Grace');
    await form.getByLabel('Last name').fill('Hopper');
    await form.getByLabel('Phone').fill('+1 555 0100');
    await form.getByLabel('Status').selectOption('qualified');
    await form.getByLabel('Source').fill('fair');
    const created = page.waitForResponse((r) => r.request().method() === 'POST');
    await form.getByRole('button', { name: 'Create lead' }).click();
    expect((await created).status()).toBe(201);

    const panel = page.getByRole('complementary', { name: 'Grace Hopper' });
    await panel.waitFor();
    const row = await leadRow('grace@acme.test');
    expect(row).toEqual({
      id: expect.any(String),
      tenant_id: acme.tenantId,
      email: 'grace@acme.test',
      first_name: 'Grace',
      last_name: 'Hopper',
      status: 'qualified',
      source: 'fair',
    });
    expect(new URL(page.url()).pathname).toBe(`/leads/${row?.id}`);
    expect(await panel.innerText()).toMatch(/Status\s+qualified/);
    // The list was asked for again: the new lead is a row of it.
    await page.getByRole('cell', { name: 'grace@acme.test' }).waitFor();
  });

  it("shows a lead's deals and its timeline, newest first, paged by Load more", async () => {
    await page.getByRole('link', { name: 'dana@acme.test' }).click();
    const panel = page.getByRole('complementary', { name: 'Dana Diaz' });
    await panel.waitFor();
    const deals = panel.getByRole('region', { name: 'Deals' });
    await deals.getByRole('link', { name: 'Dana pilot' }).waitFor();
    expect(await deals.getByRole('listitem').allInnerTexts()).toEqual([
      expect.stringMatching(/^Dana pilot\s+Proposal, \$800\.00$/),
    ]);

    const timeline = panel.getByRole('region', { name: 'Timeline' });
    await timeline.getByRole('listitem').nth(19).waitFor();
    const first = await timeline.getByRole('listitem').allInnerTexts();
    expect(first).toHaveLength(20);
    // Newest first: the deal (created now), then the activities from the latest day back.
    expect(first[0]).toMatch(/^Deal\s+Deal created: Dana pilot/);
    expect(first[1]).toContain('Follow-up 24');
    expect(first.join('\n')).not.toContain('Intro call');
    await timeline.getByRole('button', { name: 'Load more' }).click();
    await timeline.getByRole('listitem').nth(25).waitFor();
    const all = await timeline.getByRole('listitem').allInnerTexts();
    expect(all).toHaveLength(26);
    expect(all[25]).toMatch(/^Activity\s+Call: Intro call/);
    expect(await timeline.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await saveScreenshot(page, 'console-lead-timeline', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it("refuses another lead's email next to the field (409), then saves a new one", async () => {
    const panel = page.getByRole('complementary', { name: 'Dana Diaz' });
    await panel.getByRole('button', { name: 'Edit lead' }).click();
    const form = panel.getByRole('form', { name: 'Edit lead' });
    await form.getByLabel('Email').fill('erin@acme.test');
    const refused = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await form.getByRole('button', { name: 'Save lead' }).click();
    expect((await refused).status()).toBe(409);
    await form.getByText('A lead with email erin@acme.test already exists').waitFor();
    const email = form.getByLabel('Email');
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    // The refused field has the focus, so a screen reader reads its message.
    expect(await page.locator(':focus').getAttribute('id')).toBe(await email.getAttribute('id'));
    expect((await leadRow('dana@acme.test'))?.id).toBe(acme.dana);
    await saveScreenshot(page, 'console-lead-duplicate-email');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await email.fill('dana.new@acme.test');
    await form.getByLabel('Phone').fill('+1 555 0199');
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await form.getByRole('button', { name: 'Save lead' }).click();
    const answer = await saved;
    expect(answer.status()).toBe(200);
    // Only what changed was sent.
    expect(answer.request().postDataJSON()).toEqual({
      email: 'dana.new@acme.test',
      phone: '+1 555 0199',
    });
    await form.waitFor({ state: 'detached' });
    expect(await panel.innerText()).toMatch(/Email\s+dana\.new@acme\.test/);
    expect(await leadRow('dana.new@acme.test')).toMatchObject({
      id: acme.dana,
      first_name: 'Dana',
      source: 'fair',
    });
    expect(await leadRow('dana@acme.test')).toBeUndefined();
    await page.getByRole('cell', { name: 'dana.new@acme.test' }).waitFor();
    expect(await page.getByRole('cell', { name: 'dana@acme.test', exact: true }).count()).toBe(0);
  });

  it('deletes a lead once confirmed in a dialog: gone from the list and from Postgres', async () => {
    await page.getByRole('link', { name: 'frank@acme.test' }).click();
    const panel = page.getByRole('complementary', { name: 'Frank Foster' });
    await panel.getByRole('button', { name: 'Delete lead' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this lead?' });
    await dialog.waitFor();
    // Cancel has the focus: Enter alone deletes nothing.
    expect(await dialog.locator(':focus').innerText()).toBe('Cancel');
    await saveScreenshot(page, 'console-lead-delete');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await leadRow('frank@acme.test')).toBeDefined();

    await panel.getByRole('button', { name: 'Delete lead' }).click();
    const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    expect((await deleted).status()).toBe(200);
    await page.waitForURL((url) => url.pathname === '/leads');
    await page.getByRole('cell', { name: 'frank@acme.test' }).waitFor({ state: 'detached' });
    expect(await leadRow('frank@acme.test')).toBeUndefined();
    expect(await firstColumn(page)).toEqual([
      'dana.new@acme.test',
      'erin@acme.test',
      'grace@acme.test',
    ]);
  });
});

describe('an owner in the deals list', () => {
  it('opens the list view from the board and shows every deal in a table', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Deals' })
      .click();
    await page.getByRole('heading', { name: 'Deals', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Deal views' })
      .getByRole('link', { name: 'List' })
      .click();
    await page.getByRole('table').waitFor();
    expect(new URL(page.url()).pathname).toBe('/deals/list');
    expect(await page.getByRole('columnheader').allInnerTexts()).toEqual([
      'Title',
      'Value',
      'Stage',
      'Owner',
      'Expected close',
      'Created',
    ]);
    expect(await firstColumn(page)).toEqual([
      'Acme expansion',
      'Acme pilot',
      'Acme renewal',
      'Dana pilot',
      'Owned pilot',
    ]);
  });

  it('filters by stage and by owner (the list asks the API with stage and assigned_to)', async () => {
    const filters = page.getByRole('search', { name: 'Deal filters' });
    const asked = page.waitForRequest((r) => r.url().includes('stage=proposal'));
    await filters.getByLabel('Stage').selectOption('proposal');
    await asked;
    expect(await settled(() => firstColumn(page), ['Acme expansion', 'Dana pilot'])).toEqual([
      'Acme expansion',
      'Dana pilot',
    ]);
    await saveScreenshot(page, 'console-deals-list');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await filters.getByLabel('Stage').selectOption('');
    await filters.getByLabel('Owner').selectOption(acme.ownerId);
    expect(await settled(() => firstColumn(page), ['Owned pilot'])).toEqual(['Owned pilot']);
    expect(await page.getByRole('row', { name: /Owned pilot/ }).innerText()).toContain('(you)');
    await filters.getByLabel('Stage').selectOption('won');
    await page.getByText('No deal matches these filters.').waitFor();
    await filters.getByLabel('Owner').selectOption('');
    await filters.getByLabel('Stage').selectOption('');
    await page.getByRole('cell', { name: 'Dana pilot' }).waitFor();
  });

  it("changes a deal through its form: validated, saved, in Postgres and in the lead's panel", async () => {
    await page.getByRole('link', { name: 'Dana pilot' }).click();
    const panel = page.getByRole('complementary', { name: 'Dana pilot' });
    const form = panel.getByRole('form', { name: 'Edit deal' });
    await form.waitFor();
    await form.getByLabel('Value').fill('12.345');
    await form.getByRole('button', { name: 'Save deal' }).click();
    await form.getByText('An amount of at least 0, with up to 2 decimal places').waitFor();

    await form.getByLabel('Value').fill('2500.5');
    await form.getByLabel('Stage').selectOption('negotiation');
    await form.getByLabel('Owner').selectOption(acme.ownerId);
    await form.getByLabel('Expected close').fill('2027-03-31');
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await form.getByRole('button', { name: 'Save deal' }).click();
    const answer = await saved;
    expect(answer.status()).toBe(200);
    expect(answer.request().postDataJSON()).toEqual({
      value: '2500.5',
      stage: 'negotiation',
      assigned_to: acme.ownerId,
      expected_close_date: '2027-03-31',
    });
    await form.getByText('Saved.').waitFor();
    expect(await dealRow('Dana pilot')).toEqual({
      title: 'Dana pilot',
      value: '2500.50',
      stage: 'negotiation',
      assigned_to: acme.ownerId,
    });
    await page.getByRole('row', { name: /Dana pilot.*Negotiation/ }).waitFor();
    await saveScreenshot(page, 'console-deal-edit');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await panel.getByRole('link', { name: 'Its lead' }).click();
    const lead = page.getByRole('complementary', { name: 'Dana Diaz' });
    await lead
      .getByRole('region', { name: 'Deals' })
      .getByText(/Negotiation, \$2,500\.50/)
      .waitFor();
  });

  it('had no console errors, failed or off-origin requests', () => {
    expect(problems).toEqual([]);
  });
});

describe('a viewer of the same tenant', () => {
  let viewer: Page;
  let viewerProblems: string[] = [];
  const writeControls =
    /^(New lead|Edit lead|Delete lead|Create lead|Save lead|Add deal|Save deal|Delete)$/;

  beforeAll(async () => {
    viewer = await (await browser.newContext({ baseURL: stack.url })).newPage();
    // The writes sent on purpose from the viewer's page are answered 403.
    viewerProblems = watchForProblems(viewer, {
      origin: stack.url,
      allow: {
        response: (url, status) =>
          isSignedOutAnswer(url, status) ||
          (status === 403 && new URL(url).pathname.startsWith('/api/crm/')),
        aborted: true,
      },
    });
    await viewer.goto('/sign-in');
    await signInThroughConsole(viewer, acme.viewerEmail, PASSWORD);
    await viewer.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
  });

  it('sees the leads and a lead with its timeline, but no New lead, Edit or Delete', async () => {
    await viewer.getByRole('cell', { name: 'dana.new@acme.test' }).waitFor();
    expect(await viewer.getByRole('link', { name: 'New lead' }).count()).toBe(0);
    await viewer.getByRole('link', { name: 'dana.new@acme.test' }).click();
    const panel = viewer.getByRole('complementary', { name: 'Dana Diaz' });
    await panel.getByRole('region', { name: 'Timeline' }).getByRole('listitem').first().waitFor();
    await panel
      .getByRole('region', { name: 'Deals' })
      .getByRole('link', { name: 'Dana pilot' })
      .waitFor();
    expect(await viewer.getByRole('button', { name: writeControls }).count()).toBe(0);
    expect(await viewer.getByRole('link', { name: writeControls }).count()).toBe(0);
    await saveScreenshot(viewer, 'console-viewer-lead');
    expect(await seriousAxeViolations(viewer)).toEqual([]);

    await viewer.goto('/leads/new');
    await viewer.getByText('you may read the leads, not add one').waitFor();
    expect(await viewer.getByRole('form').count()).toBe(0);
  });

  it('sees the board and the deals list with no form, stage select or Save', async () => {
    await viewer.goto('/deals');
    await viewer.getByRole('listitem', { name: 'Acme renewal' }).waitFor();
    expect(await viewer.getByRole('form').count()).toBe(0);
    expect(await viewer.getByRole('main').getByRole('combobox').count()).toBe(0);
    expect(await viewer.locator('[draggable="true"]').count()).toBe(0);
    expect(await viewer.getByRole('button', { name: writeControls }).count()).toBe(0);

    await viewer.getByRole('link', { name: 'Dana pilot' }).click();
    const panel = viewer.getByRole('complementary', { name: 'Dana pilot' });
    await panel.waitFor();
    expect(await panel.innerText()).toMatch(/Stage\s+Negotiation/);
    expect(await panel.getByRole('form').count()).toBe(0);
    expect(await viewer.getByRole('button', { name: writeControls }).count()).toBe(0);
    await saveScreenshot(viewer, 'console-viewer-deal');
  });

  it('sees no write control on Contacts, Products or Activities either', async () => {
    for (const screen of ['Contacts', 'Products', 'Activities']) {
      await viewer
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: screen })
        .click();
      await viewer.getByRole('heading', { name: screen, level: 1 }).waitFor();
      await viewer
        .getByRole('table')
        .or(viewer.getByText(/ yet\./))
        .first()
        .waitFor();
      expect(
        await viewer.getByRole('button', { name: /new|add|edit|delete|save|create/i }).count(),
      ).toBe(0);
    }
  });

  it('is refused (403) a write sent from its own page, and nothing changes in Postgres', async () => {
    const answers = await viewer.evaluate(
      async ({ dana }) => {
        const send = async (method: string, path: string, body?: object) => {
          const response = await fetch(path, {
            method,
            headers: { 'Content-Type': 'application/json' },
            body: body && JSON.stringify(body),
          });
          const answer = (await response.json()) as { code?: string };
          return { status: response.status, code: answer.code };
        };
        return [
          await send('POST', '/api/crm/leads', { email: 'viewer-made@acme.test' }),
          await send('PATCH', `/api/crm/leads/${dana}`, { first_name: 'Mallory' }),
          await send('DELETE', `/api/crm/leads/${dana}`),
          await send('POST', '/api/crm/deals', { title: 'Viewer deal' }),
        ];
      },
      { dana: acme.dana },
    );
    expect(answers).toEqual(Array(4).fill({ status: 403, code: 'FORBIDDEN' }));
    expect(await leadRow('viewer-made@acme.test')).toBeUndefined();
    expect(await leadRow('dana.new@acme.test')).toMatchObject({
      id: acme.dana,
      first_name: 'Dana',
    });
    expect(await dealRow('Viewer deal')).toBeUndefined();
  });

  it('had no console errors, failed or off-origin requests', () => {
    expect(viewerProblems).toEqual([]);
  });
});
