import { createHmac, randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  buildConsoleIfMissing,
  createAccount,
  createTenant,
  failInsertsOf,
  launchChromium,
  PASSWORD,
  saveScreenshot,
  seriousAxeViolations,
  signInThroughConsole,
  testDb,
  useServiceBehindGateway,
  watchForProblems,
} from '@crm/test-kit';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { service as webhookIngest } from '../../webhook-ingest/src/main';

/*
 * The console's Integrations screen and delivery log in real headless Chromium, through a real
 * gateway in front of a real webhook-ingest. An owner copies a receiver URL and connects a
 * storefront with its webhook secret in the screen (the secret is never shown back); the test
 * then sends signed deliveries to the connection's receiver URL: one is processed, one fails
 * after verification (inserts of the tenant's orders fail, as in an outage). Both show in the
 * delivery log with their outcome; the failed one, opened, shows its headers (the signature
 * redacted) and raw payload, and re-processed from the screen its order is then in Postgres,
 * once. A viewer sees no write action and is told which role the raw payload needs. A network
 * delivery (a shared-secret receiver, routed by its account) that failed after verification is
 * re-processed from the screen too. No console error, no axe violation rated serious or
 * critical. Screenshots: artifacts/console-integrations*.png.
 */
/** What webhook-ingest believes providers call; the test posts to the gateway instead. */
const PUBLIC_BASE_URL = 'https://crm.example.test';
const NETWORK_SECRET = `network-${randomUUID()}`;
const stack = useServiceBehindGateway(webhookIngest, {
  PUBLIC_BASE_URL,
  NETWORK_WEBHOOK_SECRET: NETWORK_SECRET,
});
const database = testDb();
let browser: Browser;
let page: Page;
let problems: string[] = [];

const own = { tenantId: '', email: '', viewerEmail: '' };
const SHOP = `shop-${randomUUID().slice(0, 8)}.example.test`;
const SECRET = `shpss_${randomUUID()}`;

function ordersOf(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('commerce_orders')
      .select(['external_order_id'])
      .where('tenant_id', '=', tenantId)
      .orderBy('external_order_id')
      .execute(),
  );
}

/** A storefront A order delivery, signed with the connection's secret, sent to `url`. */
function sendOrder(url: string, orderId: number) {
  const body = JSON.stringify({
    id: orderId,
    name: `#${orderId}`,
    email: `buyer-${orderId}@example.test`,
    total_price: '12.50',
    currency: 'EUR',
    financial_status: 'paid',
    updated_at: '2030-01-01T10:00:00Z',
  });
  const { pathname } = new URL(url);
  return request(stack.url)
    .post(pathname)
    .set({
      'content-type': 'application/json',
      'x-storefront-a-shop-domain': SHOP,
      'x-storefront-a-topic': 'orders/create',
      'x-storefront-a-hmac-sha256': createHmac('sha256', SECRET).update(body).digest('base64'),
    })
    .send(body);
}

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  const tenant = await createTenant(database, 'Acme integrations console test');
  own.tenantId = tenant.id;
  const owner = await createAccount(database, 'console-integrations-owner');
  await addMember(database, tenant.id, owner.id, 'owner');
  own.email = owner.email;
  const viewer = await createAccount(database, 'console-integrations-viewer');
  await addMember(database, tenant.id, viewer.id, 'viewer');
  own.viewerEmail = viewer.email;

  const context = await browser.newContext({ baseURL: stack.url });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  page = await context.newPage();
  problems = watchForProblems(page, {
    origin: stack.url,
    allow: {
      response: (url, status) => status === 401 && new URL(url).pathname === '/api/auth/me',
      aborted: true,
    },
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await database.close();
});

describe('the Integrations screen (owner)', () => {
  it('shows each receiver URL built from PUBLIC_BASE_URL, and copies one', async () => {
    // Signed out, the screen sends to sign-in and back (crm-api, behind the Leads screen the
    // console lands on otherwise, is not in this stack).
    await page.goto('/integrations');
    await signInThroughConsole(page, own.email, PASSWORD);
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    const link = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Integrations' });
    expect(await link.getAttribute('aria-current')).toBe('page');
    const url = page.getByLabel('Storefront A (Shopify-style) receiver URL');
    expect(await url.inputValue()).toBe(`${PUBLIC_BASE_URL}/api/commerce/webhook/storefront-a`);
    await page.getByText('x-storefront-a-hmac-sha256').first().waitFor();
    await page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Storefront A (Shopify-style)' }) })
      .getByRole('button', { name: 'Copy URL' })
      .click();
    await page.getByText('Storefront A (Shopify-style) receiver URL copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(
      `${PUBLIC_BASE_URL}/api/commerce/webhook/storefront-a`,
    );
    await page.getByText('No storefront connections yet.').waitFor();
  });

  it('connects a storefront from the keyboard; the secret is stored sealed and shown as “Set”', async () => {
    const connect = page.getByRole('button', { name: 'Connect a storefront connection' });
    await connect.focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Connect a storefront connection' });
    await form.getByLabel('Platform').selectOption('storefront_a');
    await form.getByLabel('Shop').fill(SHOP);
    await form.getByLabel('Name').fill('Main shop');
    await form.getByLabel('Webhook secret').fill(SECRET);
    await form.getByRole('button', { name: 'Connect' }).click();
    const row = page.getByRole('row').filter({ hasText: SHOP });
    await row.waitFor();
    expect(await row.getByRole('cell').allInnerTexts()).toEqual(
      expect.arrayContaining(['Main shop', 'Set', 'Pending proof']),
    );
    const stored = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('storefront_connections')
        .select(['shop_identifier', 'webhook_secret_ciphertext'])
        .where('tenant_id', '=', own.tenantId)
        .execute(),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0].shop_identifier).toBe(SHOP);
    expect(stored[0].webhook_secret_ciphertext).not.toContain(SECRET);
    expect(await page.content()).not.toContain(SECRET);
    await saveScreenshot(page, 'console-integrations', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('signed deliveries to its receiver URL: one processed, one failed after verification', async () => {
    const url = await page
      .getByRole('row')
      .filter({ hasText: SHOP })
      .locator('code.url')
      .innerText();
    expect(url).toBe(`${PUBLIC_BASE_URL}/api/commerce/webhook/storefront-a`);
    expect((await sendOrder(url, 1001)).status).toBe(200);
    const outage = await failInsertsOf(database, 'commerce_orders', own.tenantId);
    try {
      expect((await sendOrder(url, 1002)).status).toBe(500);
    } finally {
      await outage.restore();
    }
    expect(await ordersOf(own.tenantId)).toEqual([{ external_order_id: '1001' }]);
  });
});

describe('the delivery log (owner)', () => {
  it('lists both deliveries with their outcome, and filters by outcome', async () => {
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByRole('heading', { name: 'Delivery log', level: 1 }).waitFor();
    await page.getByText('2 of 2 deliveries shown').waitFor();
    const outcomes = await page.locator('tbody td:nth-child(5)').allInnerTexts();
    expect(outcomes.sort()).toEqual(['failed', 'processed']);
    await page.getByLabel('Outcome').selectOption('failed');
    await page.getByText('1 of 1 deliveries shown').waitFor();
    expect(new URL(page.url()).search).toBe('?outcome=failed');
  });

  it('opens the failed one: headers with the signature redacted, raw payload, and re-processes it', async () => {
    await page.locator('tbody tr:first-child td:first-child a').click();
    const panel = page.getByRole('complementary', { name: 'storefront_a delivery' });
    await panel.waitFor();
    await panel.getByText('simulated outage writing commerce_orders').waitFor();
    const signature = panel.getByRole('row').filter({ hasText: 'x-storefront-a-hmac-sha256' });
    expect(await signature.getByRole('cell').allInnerTexts()).toEqual([
      'x-storefront-a-hmac-sha256',
      '[redacted]',
    ]);
    expect(await panel.getByLabel('Raw payload').innerText()).toContain('"id": 1002');
    expect(await page.content()).not.toContain(SECRET);
    await saveScreenshot(page, 'console-integrations-delivery', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);

    await panel.getByRole('button', { name: 'Re-process' }).click();
    await panel.getByText('Re-processed: processed').waitFor();
    expect(await ordersOf(own.tenantId)).toEqual([
      { external_order_id: '1001' },
      { external_order_id: '1002' },
    ]);
    // Processed now: no Re-process button, and the failed filter is empty.
    await panel.getByRole('button', { name: 'Re-process' }).waitFor({ state: 'detached' });
    await page.getByText('No delivery matches these filters.').waitFor();
    expect(problems).toEqual([]);
  });
});

describe('a viewer', () => {
  it('sees the integrations and the log but no write action; the raw payload says which role it needs', async () => {
    const context = await browser.newContext({ baseURL: stack.url });
    const viewerPage = await context.newPage();
    const viewerProblems = watchForProblems(viewerPage, {
      origin: stack.url,
      allow: {
        response: (url, status) =>
          (status === 401 && new URL(url).pathname === '/api/auth/me') ||
          (status === 403 && new URL(url).pathname.startsWith('/api/integrations/inbound-events/')),
      },
    });
    await viewerPage.goto('/integrations');
    await signInThroughConsole(viewerPage, own.viewerEmail, PASSWORD);
    await viewerPage.getByRole('row').filter({ hasText: SHOP }).waitFor();
    await viewerPage.getByText('needs the owner or admin role').waitFor();
    for (const name of [/^Connect/, /^Change/, /^Remove/]) {
      expect(await viewerPage.getByRole('button', { name }).count()).toBe(0);
    }
    await viewerPage.goto('/integrations/deliveries');
    await viewerPage.getByText('2 of 2 deliveries shown').waitFor();
    await viewerPage.locator('tbody tr:first-child td:first-child a').click();
    await viewerPage.getByText('This action needs one of the roles: owner, admin').waitFor();
    expect(await viewerPage.getByRole('button', { name: 'Re-process' }).count()).toBe(0);
    expect(await seriousAxeViolations(viewerPage)).toEqual([]);
    expect(viewerProblems).toEqual([]);
    await context.close();
  });
});

describe('a network delivery (owner)', () => {
  it('failed after verification, it offers Re-process like any provider’s, and is stored once', async () => {
    const account = `acc-${randomUUID()}`;
    await withSystemScope(database.db, (trx) =>
      trx
        .insertInto('network_accounts')
        .values({ tenant_id: own.tenantId, external_account_id: account, proven_at: new Date() })
        .execute(),
    );
    const raw = JSON.stringify({
      id: `evt-${randomUUID()}`,
      type: 'INVITATION_SENT',
      account_id: account,
    });
    const t = Math.floor(Date.now() / 1000);
    const outage = await failInsertsOf(database, 'network_events', own.tenantId);
    try {
      const sent = await request(stack.url)
        .post('/api/webhooks/network')
        .set({
          'content-type': 'application/json',
          'x-network-signature': `t=${t},v1=${createHmac('sha256', NETWORK_SECRET).update(`${t}.${raw}`).digest('hex')}`,
        })
        .send(raw);
      expect(sent.status).toBe(500);
    } finally {
      await outage.restore();
    }
    const networkEvents = () =>
      withSystemScope(database.db, (trx) =>
        trx
          .selectFrom('network_events')
          .select('external_event_id')
          .where('tenant_id', '=', own.tenantId)
          .execute(),
      );
    expect(await networkEvents()).toEqual([]);

    await page.goto('/integrations/deliveries?outcome=failed');
    await page.getByText('1 of 1 deliveries shown').waitFor();
    await page.locator('tbody tr:first-child td:first-child a').click();
    const panel = page.getByRole('complementary', { name: 'network delivery' });
    await panel.getByText('simulated outage writing network_events').waitFor();
    await panel.getByRole('button', { name: 'Re-process' }).click();
    await panel.getByText('Re-processed: processed').waitFor();
    expect(await networkEvents()).toHaveLength(1);
    await panel.getByRole('button', { name: 'Re-process' }).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
  });
});
