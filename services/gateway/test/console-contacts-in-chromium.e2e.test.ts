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
import { withTenant } from '@crm/shared/db';
import type { Browser, Page } from 'playwright-core';
import { service as crmApi } from '../../crm-api/src/main';

/*
 * The console's Contacts, Products and Activities screens in real headless Chromium (Debian's
 * `chromium`, driven by playwright-core), through a real gateway in front of a real crm-api:
 * each opened from the main navigation and showing only the signed-in user's tenant's records
 * in a table with column headers; contacts sorted, searched (names, email, company), a
 * contact's panel at its own address; products sorted by sku, a product's panel; activities
 * newest first, an activity's panel, a contact's activities from its panel. No console error,
 * no axe violation rated serious or critical. Screenshots go to artifacts/console-contact*.png,
 * console-product-detail.png and console-activity-detail.png. The console is built first when
 * services/console/dist is missing.
 */
const stack = useServiceBehindGateway(crmApi);
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];
let ownerEmail = '';

const OWN_CONTACTS = [
  {
    email: 'alice.anders@acme.test',
    first_name: 'Alice',
    last_name: 'Anders',
    phone: '+1 555 0101',
  },
  { email: 'bob.brown@acme.test', first_name: 'Bob', last_name: 'Brown', company: 'Brown & Co' },
  { email: 'carol.clark@acme.test', first_name: 'Carol', last_name: 'Clark' },
];
const OTHER_CONTACTS = [{ email: 'mallory.other@globex.test', first_name: 'Mallory' }];
const OWN_PRODUCTS = [
  { sku: 'WID-1', name: 'Widget', price: '19.90', currency: 'EUR', description: 'A widget' },
  { sku: 'GAD-2', name: 'Gadget', price: '5', currency: 'USD', active: false },
];

async function tenantWithContacts(
  name: string,
  contacts: object[],
): Promise<{ email: string; tenantId: string; contactIds: string[] }> {
  const tenant = await createTenant(database, name);
  const user = await createAccount(database, 'console-contacts');
  await addMember(database, tenant.id, user.id, 'owner');
  const cookie = await signIn(stack.gateway.app, user.email);
  const client = sessionClient(stack.url, cookie);
  const contactIds: string[] = [];
  for (const contact of contacts) {
    const created = await client.post('/api/crm/contacts', contact);
    expect(created.status).toBe(201);
    contactIds.push(created.body.data.contact.id);
  }
  return { email: user.email, tenantId: tenant.id, contactIds };
}

/** Activities too arrive through MCP or a migration: written directly here. */
async function seedActivities(tenantId: string, activities: SeededActivity[]) {
  await withTenant(database.db, tenantId, (trx) =>
    trx
      .insertInto('crm_activities')
      .values(activities.map((a) => ({ tenant_id: tenantId, custom_fields: '{}', ...a })))
      .execute(),
  );
}
interface SeededActivity {
  type: string;
  subject: string;
  body?: string;
  occurred_at: string;
  contact_id?: string;
}

/** Products arrive through MCP or a migration (the API has no create): written directly here. */
interface SeededProduct {
  sku: string;
  name: string;
  price?: string;
  currency?: string;
  description?: string;
  active?: boolean;
}
async function seedProducts(tenantId: string, products: SeededProduct[]) {
  await withTenant(database.db, tenantId, (trx) =>
    trx
      .insertInto('crm_products')
      .values(products.map((product) => ({ tenant_id: tenantId, ...product })))
      .execute(),
  );
}

/** Waits until the table body has `count` rows (with locators: the CSP forbids eval). */
async function rows(count: number) {
  await page.locator(`tbody tr:nth-child(${count})`).waitFor();
  await page.locator(`tbody tr:nth-child(${count + 1})`).waitFor({ state: 'detached' });
}

const contactEmails = () => page.getByRole('table').locator('tbody td:first-child').allInnerTexts();

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  const own = await tenantWithContacts('Acme contacts console test', OWN_CONTACTS);
  ownerEmail = own.email;
  const other = await tenantWithContacts('Globex contacts console test', OTHER_CONTACTS);
  await seedProducts(own.tenantId, OWN_PRODUCTS);
  await seedProducts(other.tenantId, [{ sku: 'GLOBEX-1', name: 'Globex gadget' }]);
  await seedActivities(own.tenantId, [
    {
      type: 'call',
      subject: 'Called Alice',
      body: 'She wants a demo',
      occurred_at: '2026-03-01T10:00:00Z',
      contact_id: own.contactIds[0],
    },
    { type: 'note', subject: 'Team note', occurred_at: '2026-04-01T10:00:00Z' },
  ]);
  await seedActivities(other.tenantId, [
    { type: 'call', subject: 'Globex call', occurred_at: '2026-04-02T10:00:00Z' },
  ]);
  const context = await browser.newContext({ baseURL: stack.url });
  page = await context.newPage();
  // Signed out, the console's GET /api/auth/me is answered 401 (that is how it knows to show
  // sign-in); every other 4xx, 5xx or console error is a problem. A list request of a search
  // the user has since changed is cancelled on purpose.
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

describe('the Contacts screen', () => {
  it('is opened from the main navigation once signed in', async () => {
    await page.goto('/sign-in');
    await signInThroughConsole(page, ownerEmail, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Contacts' })
      .click();
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/contacts');
  });

  it("shows the tenant's contacts in a table with column headers, and no other tenant's", async () => {
    await page.getByRole('cell', { name: 'alice.anders@acme.test' }).waitFor();
    const headers = await page.getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.replace(/[▲▼]/g, '').trim())).toEqual([
      'Email',
      'First name',
      'Last name',
      'Phone',
      'Created',
    ]);
    expect((await contactEmails()).sort()).toEqual(OWN_CONTACTS.map((c) => c.email).sort());
    expect(await page.getByRole('cell', { name: '+1 555 0101' }).count()).toBe(1);
    expect(await page.content()).not.toContain('mallory');
    await page.getByText('3 of 3 contacts shown').waitFor();
    await saveScreenshot(page, 'console-contacts');
  });

  it('sorts by the columns the API sorts by, from the keyboard', async () => {
    // Only the sorts the list offers have a button: first name and phone do not.
    expect(
      await page.getByRole('columnheader', { name: 'First name' }).getByRole('button').count(),
    ).toBe(0);
    expect(
      await page.getByRole('columnheader', { name: 'Phone' }).getByRole('button').count(),
    ).toBe(0);
    await page
      .getByRole('columnheader', { name: /Last name/ })
      .getByRole('button')
      .focus();
    await page.keyboard.press('Enter');
    await page.locator('th[aria-sort="ascending"]', { hasText: 'Last name' }).waitFor();
    await page
      .locator('tbody tr:first-child td:first-child', { hasText: 'alice.anders@acme.test' })
      .waitFor();
    expect(await contactEmails()).toEqual(OWN_CONTACTS.map((c) => c.email));
    await page.keyboard.press('Enter');
    await page.locator('th[aria-sort="descending"]', { hasText: 'Last name' }).waitFor();
    await page
      .locator('tbody tr:first-child td:first-child', { hasText: 'carol.clark@acme.test' })
      .waitFor();
    expect(await contactEmails()).toEqual(OWN_CONTACTS.map((c) => c.email).reverse());
  });

  it('narrows the list with Search: names, email, phone, company', async () => {
    const search = page.getByLabel('Search');
    expect(await search.getAttribute('placeholder')).toMatch(/name, email, phone or company/i);
    await search.fill('BOB');
    await rows(1);
    expect(await contactEmails()).toEqual(['bob.brown@acme.test']);
    await search.fill('brown & co');
    await rows(1);
    expect(await contactEmails()).toEqual(['bob.brown@acme.test']);
    await search.fill('mallory');
    await page.getByText('No contact matches this search.').waitFor();
    await search.fill('');
    await rows(3);
  });

  it("opens a contact's detail panel at its own address", async () => {
    await page.getByRole('link', { name: 'bob.brown@acme.test' }).click();
    const panel = page.getByRole('complementary', { name: 'Bob Brown' });
    await panel.waitFor();
    expect(await panel.innerText()).toMatch(/Company\s+Brown & Co/);
    expect(new URL(page.url()).pathname).toMatch(/^\/contacts\/[0-9a-f-]{36}$/);
    await saveScreenshot(page, 'console-contact-detail');
    // The address can be shared or reloaded.
    await page.reload();
    await page.getByRole('complementary', { name: 'Bob Brown' }).waitFor();
  });

  it('has no axe violation rated serious or critical', async () => {
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});

describe('the Products screen', () => {
  const skus = () => page.getByRole('table').locator('tbody td:first-child').allInnerTexts();

  it("lists the tenant's products, sorted by sku, and no other tenant's", async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Products' })
      .click();
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'WID-1' }).waitFor();
    const headers = await page.getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.replace(/[▲▼]/g, '').trim())).toEqual([
      'SKU',
      'Name',
      'Price',
      'Active',
      'Created',
    ]);
    expect((await skus()).sort()).toEqual(['GAD-2', 'WID-1']);
    expect(await page.getByRole('cell', { name: '19.90 EUR' }).count()).toBe(1);
    expect(await page.content()).not.toContain('GLOBEX');
    await page.getByRole('columnheader', { name: /SKU/ }).getByRole('button').click();
    await page.locator('th[aria-sort="ascending"]', { hasText: 'SKU' }).waitFor();
    await page.locator('tbody tr:first-child td:first-child', { hasText: 'GAD-2' }).waitFor();
    expect(await skus()).toEqual(['GAD-2', 'WID-1']);
  });

  it("opens a product's detail panel at its own address", async () => {
    await page.getByRole('link', { name: 'WID-1' }).click();
    const panel = page.getByRole('complementary', { name: 'Widget' });
    await panel.waitFor();
    expect(await panel.innerText()).toMatch(/Description\s+A widget/);
    expect(new URL(page.url()).pathname).toMatch(/^\/products\/[0-9a-f-]{36}$/);
    await saveScreenshot(page, 'console-product-detail');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});

describe('the Activities screen', () => {
  const subjects = () => page.getByRole('table').locator('tbody td:first-child').allInnerTexts();

  it("lists the tenant's activities, newest first, and no other tenant's", async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Activities' })
      .click();
    await page.getByRole('heading', { name: 'Activities', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'Team note' }).waitFor();
    const headers = await page.getByRole('columnheader').allInnerTexts();
    expect(headers.map((h) => h.replace(/[▲▼]/g, '').trim())).toEqual([
      'Subject',
      'Type',
      'About',
      'Occurred',
    ]);
    expect(await subjects()).toEqual(['Team note', 'Called Alice']);
    expect(await page.content()).not.toContain('Globex call');
    await page
      .getByRole('columnheader', { name: /Occurred/ })
      .getByRole('button')
      .click();
    await page.locator('th[aria-sort="ascending"]', { hasText: 'Occurred' }).waitFor();
    await page
      .locator('tbody tr:first-child td:first-child', { hasText: 'Called Alice' })
      .waitFor();
    expect(await subjects()).toEqual(['Called Alice', 'Team note']);
  });

  it("opens an activity's panel, which links to the contact it is about", async () => {
    await page.getByRole('link', { name: 'Called Alice' }).click();
    const panel = page.getByRole('complementary', { name: 'Called Alice' });
    await panel.waitFor();
    expect(await panel.innerText()).toMatch(/Body\s+She wants a demo/);
    expect(new URL(page.url()).pathname).toMatch(/^\/activities\/[0-9a-f-]{36}$/);
    await saveScreenshot(page, 'console-activity-detail');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await panel.getByRole('link', { name: 'Contact' }).click();
    await page.getByRole('complementary', { name: 'Alice Anders' }).waitFor();
  });

  it("shows only a contact's activities from the contact's panel", async () => {
    await page.getByRole('link', { name: 'Its activities' }).click();
    await page.getByText('Only the activities of this contact.').waitFor();
    await rows(1);
    expect(await subjects()).toEqual(['Called Alice']);
    await page.getByRole('link', { name: 'Show all activities' }).click();
    await rows(2);
  });
});

describe('the console', () => {
  it('had no console errors, failed or off-origin requests', () => {
    expect(problems).toEqual([]);
  });
});
