import {
  addMember,
  addSessionCookies,
  buildConsoleIfMissing,
  createAccount,
  createTenant,
  downloadFrom,
  gate,
  isSignedOutAnswer,
  launchChromium,
  LEAD_IMPORT_HEADER,
  leadImportCsv,
  PASSWORD,
  REJECTED_IMPORT_ROWS,
  saveScreenshot,
  seriousAxeViolations,
  sessionClient,
  signIn,
  signInThroughConsole,
  testDb,
  useServiceBehindGateway,
  watchForProblems,
} from '@crm/test-kit';
import { withTenant } from '@crm/shared/db';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { Browser, Page, Route } from 'playwright-core';
import { service as crmApi } from '../../crm-api/src/main';

/*
 * The console's Import leads and Exports screens in real headless Chromium (Debian's
 * `chromium`, driven by playwright-core), through a real gateway in front of a real crm-api:
 * a 2,000-row CSV with 3 bad rows imported in chunks with a progress bar (1,997 leads in
 * Postgres, the rejected rows downloaded and read back with the API's error texts); an XLSX
 * file made with exceljs imported too; a cancel that stops before the next chunk (rows counted
 * in Postgres); an export downloaded as CSV and as XLSX and read back against Postgres, with
 * never another tenant's lead in it. The requests the test holds back (to see the progress bar
 * mid-import, to cancel during a chunk) are held by the browser's request routing, not by
 * time. No console error, no axe violation rated serious or critical. Screenshots go to
 * artifacts/console-lead-import*.png and console-exports.png.
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];
const own = { email: '', tenantId: '', viewerEmail: '' };

async function leadEmails(domain: string): Promise<string[]> {
  const rows = await withTenant(database.db, own.tenantId, (trx) =>
    trx
      .selectFrom('crm_leads')
      .select('email')
      .where('tenant_id', '=', own.tenantId)
      .where('email', 'like', `%@${domain}`)
      .execute(),
  );
  return rows.map((r) => r.email).sort();
}

async function allOwnLeads() {
  return withTenant(database.db, own.tenantId, (trx) =>
    trx
      .selectFrom('crm_leads')
      .select(['email', 'first_name', 'last_name', 'phone', 'status', 'source'])
      .where('tenant_id', '=', own.tenantId)
      .orderBy('email')
      .execute(),
  );
}

async function chooseFile(name: string, mimeType: string, buffer: Buffer) {
  await page.getByLabel('CSV or XLSX file').setInputFiles({ name, mimeType, buffer });
}

const IMPORT_ROUTE = '**/api/v1/import/leads';

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  const tenant = await createTenant(database, 'Acme import console test');
  const user = await createAccount(database, 'console-import');
  await addMember(database, tenant.id, user.id, 'owner');
  const viewer = await createAccount(database, 'console-import-viewer');
  await addMember(database, tenant.id, viewer.id, 'viewer');
  Object.assign(own, { email: user.email, tenantId: tenant.id, viewerEmail: viewer.email });
  const otherTenant = await createTenant(database, 'Globex import console test');
  const otherUser = await createAccount(database, 'console-import-other');
  await addMember(database, otherTenant.id, otherUser.id, 'owner');
  const otherCookie = await signIn(stack.gateway.app, otherUser.email);
  const seeded = await sessionClient(stack.url, otherCookie).post('/api/v1/import/leads', {
    leads: [
      { email: 'mallory@globex.test', first_name: 'Mallory', status: 'qualified' },
      { email: 'lead1@import.test', first_name: 'Globex namesake' },
    ],
  });
  expect(seeded.body).toMatchObject({ imported: 2, failed: 0 });
  const context = await browser.newContext({ baseURL: stack.url, acceptDownloads: true });
  page = await context.newPage();
  // Signed out, the console's GET /api/auth/me is answered 401 (that is how it knows to show
  // sign-in); every other 4xx, 5xx or console error is a problem. A count of filters the user
  // has since changed is cancelled on purpose, and Chromium may report an export's request as
  // aborted when the download of the file read from it starts before it has marked the
  // request finished (the file itself is read back whole below).
  problems = watchForProblems(page, {
    origin: stack.url,
    allow: {
      response: (url, status) =>
        isSignedOutAnswer(url, status) ||
        // The Exports screen's count of deals for an assignee that is not a user id.
        (status === 400 && new URL(url).pathname === '/api/crm/deals'),
      aborted: true,
    },
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await database.close();
});

describe('the Import leads screen', () => {
  it('is reached from the Leads screen and starts empty', async () => {
    await page.goto('/sign-in');
    await signInThroughConsole(page, own.email, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Import leads' }).click();
    await page.getByRole('heading', { name: 'Import leads', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/leads/import');
    await page.getByText('No file chosen yet.').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('says so when the file is not a spreadsheet it can read', async () => {
    await chooseFile('leads.xlsx', 'application/octet-stream', Buffer.from('not a zip'));
    await page.getByRole('alert').getByText('The file is not a readable XLSX workbook.').waitFor();
    await chooseFile('only-header.csv', 'text/csv', Buffer.from(`${LEAD_IMPORT_HEADER}\r\n`));
    await page.getByText('only-header.csv has no rows below its header row').waitFor();
  });

  it('maps the columns of a 2,000-row CSV and previews its first rows', async () => {
    await chooseFile('leads.csv', 'text/csv', Buffer.from(leadImportCsv()));
    await page.getByText('Preview: the first 5 of 2,000 rows as they will be imported').waitFor();
    const mapped = async (column: string) =>
      page.getByLabel(`Import column ${column} as`).inputValue();
    expect(await mapped('Email')).toBe('email');
    expect(await mapped('First name')).toBe('first_name');
    expect(await mapped('Last name')).toBe('last_name');
    expect(await mapped('Phone')).toBe('phone');
    expect(await mapped('Status')).toBe('status');
    expect(await mapped('Source')).toBe('source');
    expect(await mapped('Company')).toBe('custom');
    const preview = page.getByRole('table', { name: /Preview/ });
    expect(await preview.locator('tbody tr').count()).toBe(5);
    expect(await preview.locator('tbody tr').first().innerText()).toMatch(
      /lead0@import\.test\s+First0\s+Last, 0\s+\+1 555 0000\s+new\s+web\s+Company: Acme 0/,
    );
    // Without an email column nothing can be imported; the button says why it is disabled.
    await page.getByLabel('Import column Email as').selectOption('custom');
    await page.getByText('Choose the column that holds the email').waitFor();
    expect(await page.getByRole('button', { name: 'Import 2,000 rows' }).isDisabled()).toBe(true);
    await page.getByLabel('Import column Email as').selectOption('email');
    await saveScreenshot(page, 'console-lead-import', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('imports in chunks with a progress bar, 1,997 leads reaching Postgres', async () => {
    await page.getByLabel('Rows per request').fill('500');
    const second = gate();
    const sizes: number[] = [];
    await page.route(IMPORT_ROUTE, async (route: Route) => {
      sizes.push((route.request().postDataJSON() as { leads: unknown[] }).leads.length);
      if (sizes.length === 2) await second.opened;
      await route.continue();
    });
    // From the keyboard: focus the button, press Enter.
    await page.getByRole('button', { name: 'Import 2,000 rows' }).focus();
    await page.keyboard.press('Enter');
    const bar = page.getByRole('progressbar', { name: 'Import progress' });
    // The first chunk is in; the second is held: the bar stands at 500 of 2,000.
    await page.getByText(/^500 of 2,000 rows done, [\d,]+ rows\/s, about .* left\./).waitFor();
    expect(await bar.getAttribute('max')).toBe('2000');
    expect(await bar.getAttribute('value')).toBe('500');
    expect(await page.getByRole('button', { name: 'Cancel import' }).isEnabled()).toBe(true);
    await saveScreenshot(page, 'console-lead-import-progress');
    second.open();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    await page.unroute(IMPORT_ROUTE);
    expect(sizes).toEqual([500, 500, 500, 500]);
    const summary = await page.locator('.import-summary dl').innerText();
    expect(summary).toMatch(/Imported\s+1,997/);
    expect(summary).toMatch(/Rejected\s+3/);

    const emails = await leadEmails('import.test');
    expect(emails).toHaveLength(1997);
    expect(emails).not.toContain('lead1200@import.test');
    const stored = (await allOwnLeads()).find((l) => l.email === 'lead7@import.test');
    expect(stored).toEqual({
      email: 'lead7@import.test',
      first_name: 'First7',
      last_name: 'Last, 7',
      phone: '+1 555 0007',
      status: 'contacted',
      source: 'web_form',
    });
    const custom = await withTenant(database.db, own.tenantId, (trx) =>
      trx
        .selectFrom('crm_leads')
        .select('custom_fields')
        .where('email', '=', 'lead7@import.test')
        .executeTakeFirstOrThrow(),
    );
    expect(custom.custom_fields).toEqual({ Company: 'Acme 0' });
  });

  it('downloads exactly the 3 rejected rows with their error texts', async () => {
    const { download, body } = await downloadFrom(page, () =>
      page.getByRole('button', { name: 'Download rejected rows (CSV)' }).click(),
    );
    expect(download.suggestedFilename()).toBe('rejected-leads.csv');
    const rows = parse(body, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.Email, r.Status, r['Line in file'], r['Import error']])).toEqual(
      REJECTED_IMPORT_ROWS,
    );
    // The file's own cells come back as they were, commas and all.
    expect(rows[0]['Last name']).toBe('Last, 500');
    await saveScreenshot(page, 'console-lead-import-done');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('imports an XLSX file too', async () => {
    await page.getByRole('button', { name: 'Import another file' }).click();
    await page.getByText('No file chosen yet.').waitFor();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Leads');
    sheet.addRow(['email', 'first_name', 'last_name', 'phone', 'status', 'source', 'Region']);
    for (let i = 0; i < 40; i++) {
      // A phone typed as a number in the spreadsheet arrives as its digits.
      sheet.addRow([
        `sheet${i}@xlsx.test`,
        `Sheet${i}`,
        'Row',
        4420794600 + i,
        'qualified',
        'fair',
        'EMEA',
      ]);
    }
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    await chooseFile(
      'leads.xlsx',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer,
    );
    await page.getByText('Preview: the first 5 of 40 rows as they will be imported').waitFor();
    expect(await page.getByLabel('Import column Region as').inputValue()).toBe('custom');
    await page.getByRole('button', { name: 'Import 40 rows' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor();
    expect(await page.locator('.import-summary dl').innerText()).toMatch(
      /Imported\s+40\s+Rejected\s+0/,
    );
    expect(await page.getByRole('button', { name: 'Download rejected rows (CSV)' }).count()).toBe(
      0,
    );
    expect(await leadEmails('xlsx.test')).toHaveLength(40);
    const stored = (await allOwnLeads()).find((l) => l.email === 'sheet3@xlsx.test');
    expect(stored).toMatchObject({
      first_name: 'Sheet3',
      phone: '4420794603',
      status: 'qualified',
    });
  });

  it('stops after the chunk under way when cancelled', async () => {
    await page.getByRole('button', { name: 'Import another file' }).click();
    const lines = ['email,first_name'];
    for (let i = 0; i < 3000; i++) lines.push(`c${i}@cancel.test,Cancel${i}`);
    await chooseFile('cancel.csv', 'text/csv', Buffer.from(lines.join('\n')));
    await page.getByLabel('Rows per request').fill('1000');
    const release = gate();
    const answered = gate();
    let requests = 0;
    // The first chunk reaches crm-api and is answered; the answer is held until the user
    // has pressed Cancel, so the cancel lands while that request is under way.
    await page.route(IMPORT_ROUTE, async (route: Route) => {
      requests += 1;
      const response = await route.fetch();
      answered.open();
      await release.opened;
      await route.fulfill({ response });
    });
    await page.getByRole('button', { name: 'Import 3,000 rows' }).click();
    await answered.opened;
    await page.getByRole('button', { name: 'Cancel import' }).click();
    await page.getByRole('button', { name: 'Cancelling after the current request…' }).waitFor();
    release.open();
    await page.getByRole('heading', { name: 'Import cancelled' }).waitFor();
    await page.unroute(IMPORT_ROUTE);
    expect(requests).toBe(1);
    expect(await page.locator('.import-summary dl').innerText()).toMatch(
      /Imported\s+1,000\s+Rejected\s+0\s+Not sent\s+2,000/,
    );
    const emails = await leadEmails('cancel.test');
    expect(emails).toHaveLength(1000);
    expect(emails).toContain('c999@cancel.test');
    expect(emails).not.toContain('c1000@cancel.test');
  });
});

describe('the Exports screen', () => {
  it('is opened from the main navigation and counts the matching leads', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Exports' })
      .click();
    await page.getByRole('heading', { name: 'Exports', level: 1 }).waitFor();
    const total = (await allOwnLeads()).length;
    expect(total).toBe(1997 + 40 + 1000);
    await page.getByText(`${total.toLocaleString('en')} leads match.`).waitFor();
    expect(await page.getByRole('radio', { name: 'Leads' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'CSV' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Custom fields' }).isChecked()).toBe(true);
    await saveScreenshot(page, 'console-exports', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it("downloads a CSV of the tenant's leads that matches Postgres, and no other tenant's", async () => {
    const { download, body } = await downloadFrom(page, () =>
      page.getByRole('button', { name: 'Download CSV' }).click(),
    );
    expect(download.suggestedFilename()).toMatch(/^leads-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parse(body, { columns: true, bom: true }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual([
      'id',
      'email',
      'first_name',
      'last_name',
      'phone',
      'status',
      'source',
      'custom_fields',
      'created_at',
      'updated_at',
    ]);
    const fromFile = rows
      .map(({ email, first_name, last_name, phone, status, source }) => ({
        email,
        first_name: first_name || null,
        last_name: last_name || null,
        // A value starting with + is exported with a quote so a spreadsheet takes it as text.
        phone: phone ? phone.replace(/^'/, '') : null,
        status,
        source,
      }))
      .sort((a, b) => a.email.localeCompare(b.email));
    const stored = await allOwnLeads();
    expect(fromFile).toEqual([...stored].sort((a, b) => a.email.localeCompare(b.email)));
    expect(body.toString('utf8')).not.toContain('globex');
    expect(body.toString('utf8')).not.toContain('Globex namesake');
    await page.getByText(/^Saved leads-[\d-]+\.csv \(/).waitFor();
  });

  it('exports with filters and chosen columns, as XLSX', async () => {
    await page.getByRole('radio', { name: 'XLSX' }).check();
    const filters = page.getByRole('group', { name: 'Filters' });
    await filters.getByLabel('Status').selectOption('qualified');
    const qualified = (await allOwnLeads()).filter((l) => l.status === 'qualified');
    await page.getByText(`${qualified.length.toLocaleString('en')} leads match.`).waitFor();
    for (const name of ['ID', 'Phone', 'Source', 'Custom fields', 'Created', 'Updated']) {
      await page.getByRole('checkbox', { name, exact: true }).uncheck();
    }
    const { download, body } = await downloadFrom(page, () =>
      page.getByRole('button', { name: 'Download XLSX' }).click(),
    );
    expect(download.suggestedFilename()).toMatch(/^leads-[\d-]+\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const values = sheet.getSheetValues().slice(1) as unknown[][];
    expect(values[0].slice(1)).toEqual(['Email', 'First name', 'Last name', 'Status']);
    const emails = values
      .slice(1)
      .map((row) => row[1] as string)
      .sort();
    expect(emails).toEqual(qualified.map((l) => l.email).sort());
    expect(values.slice(1).every((row) => row[4] === 'qualified')).toBe(true);
  });

  it('says when no record matches, and shows a refused request with its message', async () => {
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Search').fill('nobody-has-this');
    await page
      .getByText('No leads match these filters: the file would hold only its header.')
      .waitFor();
    await page.getByRole('radio', { name: 'Deals' }).check();
    await page.getByText('No deals match these filters').waitFor();
    expect(await page.getByRole('checkbox', { name: 'Title' }).isChecked()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Assigned to (user id)').fill('not-a-user-id');
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(/assigned_to/);
    await page.getByLabel('Assigned to (user id)').fill('');
    await page.getByText('No deals match these filters').waitFor();
  });
});

describe('a viewer', () => {
  it('is told which role the import needs, imports nothing, and may still export', async () => {
    const context = await browser.newContext({ baseURL: stack.url, acceptDownloads: true });
    await addSessionCookies(context, await signIn(stack.gateway.app, own.viewerEmail), stack.url);
    const viewerPage = await context.newPage();
    const viewerProblems = watchForProblems(viewerPage, {
      origin: stack.url,
      allow: {
        response: (url, status) =>
          status === 403 && new URL(url).pathname === '/api/v1/import/leads',
        // As above: the export's request, read to its end, may be reported aborted.
        aborted: true,
      },
    });
    await viewerPage.goto('/leads/import');
    await viewerPage.getByLabel('CSV or XLSX file').setInputFiles({
      name: 'viewer.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\nv1@viewer.test\nv2@viewer.test\n'),
    });
    await viewerPage.getByRole('button', { name: 'Import 2 rows' }).click();
    const refused = viewerPage.getByRole('alert');
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(
      /^Viewers may only read\. Your role in this tenant does not allow this/,
    );
    expect(await viewerPage.getByRole('button', { name: 'Try again' }).count()).toBe(1);
    expect(await leadEmails('viewer.test')).toEqual([]);

    await viewerPage.goto('/exports');
    await viewerPage.getByRole('radio', { name: 'PDF' }).check();
    const { download, body: pdf } = await downloadFrom(viewerPage, () =>
      viewerPage.getByRole('button', { name: 'Download PDF' }).click(),
    );
    expect(download.suggestedFilename()).toMatch(/^leads-[\d-]+\.pdf$/);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/);
    expect(viewerProblems).toEqual([]);
    await context.close();
  });
});

describe('the console', () => {
  it('had no console errors, failed or off-origin requests', () => {
    expect(problems).toEqual([]);
  });
});
