import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ingestConversations, ingestMessages } from '@crm/records';
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
 * The console's Conversations and Forms screens in real headless Chromium (Debian's
 * `chromium`, driven by playwright-core), through a real gateway in front of a real crm-api.
 * Conversations and messages are stored as MCP and migrate store them (@crm/records' ingest):
 * the list shows only the tenant's conversations and filters them; a thread reads oldest first,
 * the latest 50 first and the earlier ones on "Load earlier messages", its contact linked. A form
 * is created with fields in the UI (its row checked in Postgres), a field edited, the copied
 * embed snippet posted from a plain page on another origin, and that submission then shows in
 * the form's submissions table. A viewer sees no create or edit control. No console error, no
 * axe violation rated serious or critical. Screenshots go to artifacts/console-conversation*.png
 * and console-form*.png.
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];
let plainSite: Server;
let plainSiteUrl = '';
/** The snippet the console's Copy button put on the clipboard, served by the plain site. */
let copiedSnippet = '';

const own = { tenantId: '', slug: '', email: '', contactId: '', viewerEmail: '' };
let otherTenantId = '';
const MESSAGES = 55;
const label = (n: number) => `Message ${String(n).padStart(2, '0')}`;

async function seedConversations(tenantId: string, conversations: object[], messages: object[]) {
  await withTenant(database.db, tenantId, async (trx) => {
    const stored = await ingestConversations(trx, tenantId, conversations);
    expect(stored.errors).toEqual([]);
    const sent = await ingestMessages(trx, tenantId, messages);
    expect(sent.errors).toEqual([]);
  });
}

/** A page on another origin holding only `copiedSnippet`, as a customer's website would. */
function startPlainSite(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>Our site</title><body>${copiedSnippet}</body>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function formsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_web_forms')
      .select(['id', 'slug', 'name', 'fields', 'enabled'])
      .where('tenant_id', '=', tenantId)
      .execute(),
  );
}

function submissionsOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('crm_form_submissions')
      .select(['form_id', 'payload', 'lead_id'])
      .where('tenant_id', '=', tenantId)
      .execute(),
  );
}

const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

/** Waits until the table body has `count` rows (with locators: the CSP forbids eval). */
async function rows(count: number) {
  await page.locator(`tbody tr:nth-child(${count})`).waitFor();
  await page.locator(`tbody tr:nth-child(${count + 1})`).waitFor({ state: 'detached' });
}
const firstColumn = () => page.getByRole('table').locator('tbody td:first-child').allInnerTexts();
const messages = () => page.getByRole('list', { name: 'Messages, oldest first' }).locator('li');

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  const tenant = await createTenant(database, 'Acme conversations console test');
  own.tenantId = tenant.id;
  own.slug = tenant.slug;
  const owner = await createAccount(database, 'console-conv-owner');
  await addMember(database, tenant.id, owner.id, 'owner');
  own.email = owner.email;
  const viewer = await createAccount(database, 'console-conv-viewer');
  await addMember(database, tenant.id, viewer.id, 'viewer');
  own.viewerEmail = viewer.email;
  const contact = await sessionClient(stack.url, await signIn(stack.gateway.app, owner.email)).post(
    '/api/crm/contacts',
    { email: 'ann@acme.test', first_name: 'Ann', last_name: 'Archer' },
  );
  expect(contact.status).toBe(201);
  own.contactId = contact.body.data.contact.id;
  await seedConversations(
    own.tenantId,
    [
      {
        external_id: 'acme-ann',
        channel: 'chat',
        contact_email: 'ann@acme.test',
        subject: 'Order question',
        status: 'open',
        started_at: '2026-03-01T09:00:00Z',
      },
      { external_id: 'acme-bob', channel: 'sms', subject: 'Delivery', status: 'closed' },
    ],
    [
      ...Array.from({ length: MESSAGES }, (_, i) => ({
        conversation_external_id: 'acme-ann',
        external_id: `acme-ann-${i + 1}`,
        direction: i % 2 === 0 ? 'inbound' : 'outbound',
        sender: i % 2 === 0 ? 'Ann' : 'Support',
        body: label(i + 1),
        // Stored out of order on purpose: the thread reads by sent_at, not by arrival.
        sent_at: new Date(Date.UTC(2026, 2, 1, 10, MESSAGES - ((i * 7) % MESSAGES))).toISOString(),
      })),
      {
        conversation_external_id: 'acme-bob',
        external_id: 'acme-bob-1',
        body: 'Where is my parcel?',
        sent_at: '2026-03-02T10:00:00Z',
      },
    ],
  );
  otherTenantId = (await createTenant(database, 'Globex conversations console test')).id;
  await seedConversations(
    otherTenantId,
    [{ external_id: 'globex-mallory', subject: 'Globex secret plans', status: 'open' }],
    [{ conversation_external_id: 'globex-mallory', external_id: 'g-1', body: 'Globex only' }],
  );
  plainSite = await startPlainSite();
  plainSiteUrl = `http://127.0.0.1:${(plainSite.address() as AddressInfo).port}/`;

  const context = await browser.newContext({ baseURL: stack.url });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  page = await context.newPage();
  // Signed out, GET /api/auth/me is answered 401 (the console then shows sign-in). A list
  // request of a filter the user has since changed is cancelled on purpose.
  problems = watchForProblems(page, {
    origin: stack.url,
    allow: {
      response: isSignedOutAnswer,
      aborted: true,
    },
  });
}, 180_000);

/**
 * The messages as the thread shows them (the seeded sent_at order): Message 01's sent_at is
 * 10:55, then every 7th wraps around. Sorted by sent_at, the labels read in this order.
 */
function expectedOrder(): string[] {
  return Array.from({ length: MESSAGES }, (_, i) => ({
    body: label(i + 1),
    at: MESSAGES - ((i * 7) % MESSAGES),
  }))
    .sort((a, b) => a.at - b.at)
    .map((m) => m.body);
}

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => plainSite?.close(resolve));
  await database.close();
});

describe('the Conversations screen', () => {
  it('is opened from the main navigation once signed in', async () => {
    await page.goto('/sign-in');
    await signInThroughConsole(page, own.email, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await nav('Conversations');
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/conversations');
  });

  it("lists only the tenant's conversations in a table with column headers", async () => {
    await page.getByRole('cell', { name: 'ann@acme.test' }).waitFor();
    await rows(2);
    const headers = await page.getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.replace(/[▲▼]/g, '').trim())).toEqual([
      'With',
      'Subject',
      'Channel',
      'Status',
      'Last message',
      'Created',
    ]);
    expect((await firstColumn()).sort()).toEqual(['acme-bob', 'ann@acme.test']);
    expect(await page.content()).not.toContain('Globex');
    await page.getByText('2 of 2 conversations shown').waitFor();
    await saveScreenshot(page, 'console-conversations');
  });

  it('filters by status and channel, from the keyboard', async () => {
    await page.getByLabel('Status').focus();
    await page.getByLabel('Status').selectOption('closed');
    await rows(1);
    expect(await firstColumn()).toEqual(['acme-bob']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Channel').fill('chat');
    await rows(1);
    expect(await firstColumn()).toEqual(['ann@acme.test']);
    await page.getByLabel('Channel').fill('whatsapp');
    await page.getByText('No conversation matches these filters.').waitFor();
    await page.getByLabel('Channel').fill('');
    await rows(2);
  });

  it('sorts by the last message, the API sort', async () => {
    await page
      .getByRole('columnheader', { name: /Last message/ })
      .getByRole('button')
      .click();
    await page.locator('th[aria-sort="ascending"]', { hasText: 'Last message' }).waitFor();
    // Ann's last message (10:55 on 1 March) is before Bob's (2 March).
    await page
      .locator('tbody tr:first-child td:first-child', { hasText: 'ann@acme.test' })
      .waitFor();
    expect(await firstColumn()).toEqual(['ann@acme.test', 'acme-bob']);
  });

  it('opens a thread: the latest 50 messages, oldest first, with sender and time', async () => {
    await page.getByRole('link', { name: 'ann@acme.test' }).click();
    await page
      .getByRole('heading', { name: 'Conversation with ann@acme.test', level: 1 })
      .waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/conversations\/[0-9a-f-]{36}$/);
    await page.getByText(`50 of ${MESSAGES} messages shown`).waitFor();
    const order = expectedOrder();
    const bodies = await messages().locator('.message-body').allInnerTexts();
    expect(bodies).toEqual(order.slice(MESSAGES - 50));
    const first = await messages().first().innerText();
    const firstIndex = Number(order[MESSAGES - 50].slice('Message '.length));
    expect(first).toContain(firstIndex % 2 === 1 ? 'Received · Ann' : 'Sent · Support');
    expect(await messages().first().locator('time').getAttribute('datetime')).toMatch(
      /^2026-03-01T10:\d\d:00\.000Z$/,
    );
    await saveScreenshot(page, 'console-conversation-thread');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('loads the earlier messages from the keyboard, then says it reached the start', async () => {
    const earlier = page.getByRole('button', { name: 'Load earlier messages' });
    await earlier.focus();
    await page.keyboard.press('Enter');
    await page.getByText(`${MESSAGES} of ${MESSAGES} messages shown`).waitFor();
    expect(await messages().locator('.message-body').allInnerTexts()).toEqual(expectedOrder());
    await page.getByText('The start of the conversation.').waitFor();
    expect(await earlier.count()).toBe(0);
  });

  it("links to the contact's panel, which links back to their conversations", async () => {
    await page.getByRole('link', { name: 'ann@acme.test' }).click();
    await page.getByRole('complementary', { name: 'Ann Archer' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/contacts/${own.contactId}`);
    await page.getByRole('link', { name: 'Its conversations' }).click();
    await page.getByText('Only the conversations of this contact.').waitFor();
    await rows(1);
    expect(await firstColumn()).toEqual(['ann@acme.test']);
  });
});

describe('the Forms screen', () => {
  let formId = '';
  const FIELDS = [
    { name: 'email', label: 'Email', type: 'email', required: true },
    { name: 'company', label: 'Company', type: 'text', required: true },
    {
      name: 'topic',
      label: 'Topic',
      type: 'select',
      required: false,
      options: ['sales', 'support'],
    },
  ];

  it('says there are no forms yet', async () => {
    await nav('Forms');
    await page.getByRole('heading', { name: 'Forms', level: 1 }).waitFor();
    await page.getByText('No forms yet.').waitFor();
    await saveScreenshot(page, 'console-forms-empty');
  });

  it('refuses a bad slug before sending, with the API rule', async () => {
    await page.getByRole('link', { name: 'New form' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New form', level: 1 }).waitFor();
    // A new form starts with the email field every submission needs.
    expect(await page.getByLabel('Field 1 name').inputValue()).toBe('email');
    await page.getByLabel('Name', { exact: true }).fill('Contact us');
    await page.getByLabel('Slug').fill('Contact Us');
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByText('slug must be lower-case letters, digits and single dashes').waitFor();
    expect(await page.getByLabel('Slug').getAttribute('aria-invalid')).toBe('true');
    expect(await formsOf(own.tenantId)).toEqual([]);
  });

  it('creates a form with fields: one row in Postgres', async () => {
    await page.getByLabel('Slug').fill('contact-us');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 2 name').fill('company');
    await page.getByLabel('Field 2 label').fill('Company');
    await page.getByLabel('Field 2 required').check();
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 3 name').fill('topic');
    await page.getByLabel('Field 3 label').fill('Topic');
    await page.getByLabel('Field 3 type').selectOption('select');
    await page.getByLabel('Field 3 options').fill('sales, support');
    await saveScreenshot(page, 'console-form-editor', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByRole('heading', { name: 'Contact us', level: 1 }).waitFor();
    formId = new URL(page.url()).pathname.split('/')[2];
    expect(await formsOf(own.tenantId)).toEqual([
      { id: formId, slug: 'contact-us', name: 'Contact us', enabled: true, fields: FIELDS },
    ]);
  });

  it('edits a field', async () => {
    await page.getByRole('link', { name: 'Edit form' }).click();
    await page.getByRole('heading', { name: 'Edit form', level: 1 }).waitFor();
    await page.getByLabel('Field 2 label').fill('Company name');
    await page.getByLabel('Field 2 required').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Contact us', level: 1 }).waitFor();
    const [stored] = await formsOf(own.tenantId);
    expect(stored.fields).toEqual([
      FIELDS[0],
      { name: 'company', label: 'Company name', type: 'text', required: false },
      FIELDS[2],
    ]);
  });

  it('shows the public URL and copies the embed snippet', async () => {
    const url = `${stack.url}/api/public/forms/${own.slug}/contact-us/submit`;
    expect(await page.getByLabel('Public submit URL').inputValue()).toBe(url);
    const snippet = await page.getByLabel('HTML embed snippet').inputValue();
    expect(snippet).toContain(`<form action="${url}" method="post">`);
    expect(snippet).toContain('name="_hp"');
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByText('HTML embed snippet copied.').waitFor();
    // A string: the test's own types have no DOM.
    copiedSnippet = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(copiedSnippet).toBe(snippet);
    await page.getByText('No submissions yet.').waitFor();
    await saveScreenshot(page, 'console-form', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('the snippet posted from a plain page on another origin stores a submission', async () => {
    // A visitor of the customer's site: no session, another origin.
    const visitor = await browser.newContext();
    const site = await visitor.newPage();
    await site.goto(plainSiteUrl);
    await site.getByLabel('Email').fill('visitor@example.com');
    await site.getByLabel('Company name').fill('Visitor Ltd');
    await site.getByLabel('Topic').selectOption('support');
    const answered = site.waitForResponse((r) => r.url().endsWith('/contact-us/submit'));
    await site.getByRole('button', { name: 'Send' }).click();
    expect((await answered).status()).toBe(201);
    await visitor.close();
    const stored = await submissionsOf(own.tenantId);
    expect(stored).toEqual([
      {
        form_id: formId,
        payload: { email: 'visitor@example.com', company: 'Visitor Ltd', topic: 'support' },
        lead_id: expect.any(String),
      },
    ]);
    expect(await submissionsOf(otherTenantId)).toEqual([]);
  });

  it("then shows it in the form's submissions table", async () => {
    await page.getByRole('button', { name: 'Refresh submissions' }).click();
    await page.getByRole('cell', { name: 'visitor@example.com' }).waitFor();
    await rows(1);
    const headers = await page.getByRole('columnheader').allInnerTexts();
    expect(headers).toEqual(['Received', 'Email', 'Company name', 'Topic', 'Other values', 'Lead']);
    const cells = await page.locator('tbody tr:first-child td').allInnerTexts();
    expect(cells.slice(1)).toEqual([
      'visitor@example.com',
      'Visitor Ltd',
      'support',
      '—',
      'Open lead',
    ]);
    await saveScreenshot(page, 'console-form-submissions', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('lists the form', async () => {
    await page.getByRole('link', { name: 'Back to forms' }).click();
    await page.getByRole('link', { name: 'Contact us' }).waitFor();
    expect(await firstColumn()).toEqual(['Contact us']);
    await saveScreenshot(page, 'console-forms');
  });
});

describe('a viewer', () => {
  it('reads conversations, and sees no form controls but which role forms need', async () => {
    const context = await browser.newContext({ baseURL: stack.url });
    const viewerPage = await context.newPage();
    const viewerProblems = watchForProblems(viewerPage, {
      origin: stack.url,
      allow: {
        response: (url, status) =>
          isSignedOutAnswer(url, status) ||
          (status === 403 && new URL(url).pathname.startsWith('/api/crm/forms')),
      },
    });
    await viewerPage.goto('/sign-in');
    await signInThroughConsole(viewerPage, own.viewerEmail, PASSWORD);
    await viewerPage.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await viewerPage
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Conversations' })
      .click();
    await viewerPage.getByRole('cell', { name: 'ann@acme.test' }).waitFor();
    await viewerPage
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Forms' })
      .click();
    const alert = viewerPage.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/viewer/i);
    expect(await viewerPage.getByRole('link', { name: 'New form' }).count()).toBe(0);
    await viewerPage.goto('/forms/new');
    await viewerPage
      .getByText(
        'Only an owner or admin of the tenant can create or change forms (your role: viewer).',
      )
      .waitFor();
    expect(await viewerPage.getByRole('button', { name: 'Create form' }).count()).toBe(0);
    expect(viewerProblems).toEqual([]);
    await context.close();
  });
});

describe('the console', () => {
  it('had no console errors, failed or off-origin requests', () => {
    expect(problems).toEqual([]);
  });
});
