import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  addSessionCookies,
  buildConsoleIfMissing,
  createAccount,
  createTenant,
  eventually,
  launchChromium,
  outboxEvents,
  PASSWORD,
  saveScreenshot,
  seriousAxeViolations,
  sessionClient,
  signIn,
  signInThroughConsole,
  usePlatformBehindGateway,
  isSignedOutAnswer,
  watchForProblems,
} from '@crm/test-kit';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { service as automation } from '../../automation/src/main';
import { service as crmApi } from '../../crm-api/src/main';

/*
 * The console's Workflows screens in real headless Chromium (Debian's `chromium`), through a
 * real gateway in front of crm-api and automation sharing a bus, with a local webhook receiver
 * (loopback is allowed by OUTBOUND_ALLOW_PRIVATE_NETWORKS, as in development). A workflow is
 * built in the builder (a reserved header refused with the API's own rule first), its signing
 * secret shown once with the verification snippet; a lead imported through the API runs it and
 * the run shows in the history; the receiver then fails, a second import fails its step, the
 * failed run is found by the status filter and replayed from its page, and the receiver gets
 * the same webhook-id twice. A test run shows its steps, on a sample record and on a recent
 * event picked from the list (only those the trigger matches; none for a trigger nothing has
 * matched yet). A viewer sees no write control. No console error, no serious axe finding.
 * Screenshots: artifacts/console-workflow*.png.
 */
const stack = usePlatformBehindGateway([
  { service: crmApi },
  { service: automation, env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } },
]);
let browser: Browser;
let page: Page;
let problems: string[] = [];
let receiver: Server;
let receiverUrl = '';
/** While true the receiver answers 500. */
let failing = false;
/** The webhook-id of every request the receiver got, in order. */
const received: string[] = [];
const own = { tenantId: '', ownerEmail: '', ownerCookie: '', viewerEmail: '' };
let workflowId = '';

function startReceiver(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(failing ? 500 : 200).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const runsOf = (tenantId: string) =>
  withSystemScope(stack.database.db, (trx) =>
    trx
      .selectFrom('workflow_runs')
      .select(['id', 'status', 'replay_of', 'is_test'])
      .where('tenant_id', '=', tenantId)
      .orderBy('started_at')
      .execute(),
  );

/** Imports one lead through the API and waits until its run has finished with `status`. */
async function importLeadAndWait(email: string, status: 'success' | 'failed') {
  const before = (await runsOf(own.tenantId)).length;
  const res = await sessionClient(stack.url, own.ownerCookie).post('/api/v1/import/leads', {
    leads: [{ email, status: 'new' }],
  });
  expect(res.status).toBe(200);
  return eventually(async () => {
    const runs = await runsOf(own.tenantId);
    expect(runs).toHaveLength(before + 1);
    expect(runs[before].status).toBe(status);
    return runs[before];
  }, 20_000);
}

const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

beforeAll(async () => {
  await buildConsoleIfMissing();
  browser = await launchChromium();
  receiver = await startReceiver();
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const db = stack.database;
  own.tenantId = (await createTenant(db, 'Acme workflows console test')).id;
  const owner = await createAccount(db, 'console-wf-owner');
  await addMember(db, own.tenantId, owner.id, 'owner');
  own.ownerEmail = owner.email;
  own.ownerCookie = await signIn(stack.gateway.app, owner.email);
  const viewer = await createAccount(db, 'console-wf-viewer');
  await addMember(db, own.tenantId, viewer.id, 'viewer');
  own.viewerEmail = viewer.email;
  page = await (await browser.newContext({ baseURL: stack.url })).newPage();
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
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the Workflows screen', () => {
  it('is reached from the main navigation and says there are none yet', async () => {
    await page.goto('/sign-in');
    await signInThroughConsole(page, own.ownerEmail, PASSWORD);
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    await nav('Workflows');
    await page.getByRole('heading', { name: 'Workflows', level: 1 }).waitFor();
    await page.getByText('No workflows yet.').waitFor();
  });

  it('builds a workflow: a reserved header is refused by the API rule, then it is created and its secret shown once', async () => {
    await page.getByRole('link', { name: 'New workflow' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New workflow', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('New leads to our hook');
    await page.getByLabel('Event', { exact: true }).fill('lead.created');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Condition 1 field').fill('status');
    await page.getByLabel('Condition 1 operator').selectOption('equals');
    await page.getByLabel('Condition 1 value').fill('new');
    await page.getByLabel('Node 1 name (optional)').fill('notify');
    await page.getByLabel('Node 1 URL').fill(receiverUrl);
    await page.getByLabel('Node 1 method').selectOption('POST');
    await page.getByRole('button', { name: 'Add header to node 1' }).click();
    await page.getByLabel('Node 1 header 1 name').fill('webhook-id');
    await page.getByLabel('Node 1 header 1 value').fill('mine');
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByText('header webhook-id is reserved and cannot be set').waitFor();
    expect(await runsOf(own.tenantId)).toEqual([]);
    await page.getByLabel('Node 1 header 1 name').fill('X-Team');
    await page.getByLabel('Node 1 header 1 value').fill('sales');
    await saveScreenshot(page, 'console-workflow-builder', { fullPage: true });
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByText('Workflow created.').waitFor();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByLabel('Verify on your receiver (Node, svix)').inputValue()).toContain(
      'wh.verify(req.body, req.headers)',
    );
    await saveScreenshot(page, 'console-workflow-secret');
    const [row] = await withSystemScope(stack.database.db, (trx) =>
      trx
        .selectFrom('automation_workflows')
        .select(['id', 'trigger_event', 'nodes', 'enabled'])
        .where('tenant_id', '=', own.tenantId)
        .execute(),
    );
    expect(row).toMatchObject({ trigger_event: 'lead.created', enabled: true });
    expect(row.nodes).toEqual([
      {
        type: 'webhook',
        name: 'notify',
        config: { url: receiverUrl, method: 'POST', headers: { 'X-Team': 'sales' } },
      },
    ]);
    workflowId = row.id;
    await page.getByRole('link', { name: 'Open the workflow' }).click();
    await page.getByRole('heading', { name: 'New leads to our hook', level: 1 }).waitFor();
    // The secret is not shown again.
    expect(await page.content()).not.toContain(secret);
  });

  it('a lead import runs it: the run shows in the list and in the run history', async () => {
    await importLeadAndWait('ann@acme.test', 'success');
    await nav('Workflows');
    const row = page.getByRole('row', { name: /New leads to our hook/ });
    await row.getByText('Succeeded').waitFor();
    expect(await row.innerText()).toContain('Enabled');
    await saveScreenshot(page, 'console-workflows');
    await page.getByRole('link', { name: 'Run history' }).click();
    await page.getByRole('heading', { name: 'Run history', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'Succeeded' }).waitFor();
    // The run names its workflow (the list answers the name with each run).
    await page
      .getByRole('row', { name: /Succeeded/ })
      .getByRole('link', { name: 'New leads to our hook' })
      .waitFor();
  });

  it('the receiver fails; the failed run is found by its status and replayed with the same webhook-id', async () => {
    failing = true;
    const failed = await importLeadAndWait('bob@acme.test', 'failed');
    failing = false;
    await page.reload();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('1 of 1 runs shown').waitFor();
    await page
      .getByRole('row', { name: /Failed/ })
      .getByRole('link')
      .first()
      .click();
    await page.getByRole('heading', { name: 'Run', level: 1 }).waitFor();
    await page.getByRole('cell', { name: `Webhook POST ${receiverUrl} → 500` }).waitFor();
    await saveScreenshot(page, 'console-workflow-run-failed', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Replay failed steps' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Replayed:').waitFor();
    await page.getByRole('link', { name: 'Open the replay' }).click();
    await page.getByText('Replay of').waitFor();
    await page.getByRole('cell', { name: `Webhook POST ${receiverUrl} → 200` }).waitFor();
    await saveScreenshot(page, 'console-workflow-replay', { fullPage: true });

    const stepId = `msg_${failed.id}_0`;
    expect(received.filter((id) => id === stepId)).toHaveLength(2);
    const runs = await runsOf(own.tenantId);
    expect(runs).toHaveLength(3);
    expect(runs[2]).toMatchObject({ replay_of: failed.id, status: 'success' });
  });

  it('a test run shows each step with its response status, duration and message', async () => {
    await page.goto(`/workflows/${workflowId}`);
    await page.getByRole('button', { name: 'Run test' }).click();
    const steps = page.getByRole('table', { name: 'Test run steps' });
    await steps.getByRole('cell', { name: `Webhook POST ${receiverUrl} → 200` }).waitFor();
    expect(await steps.locator('tbody tr').innerText()).toMatch(/notify\s+success\s+200\s+\d+ ms/);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    await saveScreenshot(page, 'console-workflow', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a test run on a recent event picked from the list shows its steps', async () => {
    // The two imports' lead.created events: the older one (Ann's) is picked.
    const events = (await outboxEvents(stack.database, own.tenantId))
      .filter((event) => event.type === 'lead.created')
      .map(({ envelope }) => ({ id: envelope.id, email: envelope.data.email }));
    const ann = events.find((event) => event.email === 'ann@acme.test');
    expect(ann).toBeDefined();
    const before = (await runsOf(own.tenantId)).length;
    const sent = received.length;

    await page.goto(`/workflows/${workflowId}`);
    // Keyboard: from the first choice to the second with an arrow key.
    await page.getByRole('radio', { name: 'Sample record' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('radio', { name: 'Recent event' }).isChecked()).toBe(true);
    const picker = page.getByLabel('Event to run on (newest first)');
    await picker.waitFor();
    const options = await picker.locator('option').allInnerTexts();
    expect(options.length).toBe(events.length);
    for (const option of options) expect(option).toMatch(/^lead\.created · leads \S+ · .+\d/);
    await picker.selectOption(ann!.id);
    await page.getByText('Payload of the picked event').click();
    await page.getByText('"email": "ann@acme.test"').waitFor();
    await page.getByRole('button', { name: 'Run test' }).click();
    const steps = page.getByRole('table', { name: 'Test run steps' });
    await steps.getByRole('cell', { name: `Webhook POST ${receiverUrl} → 200` }).waitFor();
    expect(await steps.locator('tbody tr').innerText()).toMatch(/notify\s+success\s+200\s+\d+ ms/);
    await page.getByText(/^Test run on lead\.created \(leads \S+\): Succeeded\./).waitFor();
    await saveScreenshot(page, 'console-workflow-test-on-event', { fullPage: true });
    expect(await seriousAxeViolations(page)).toEqual([]);

    const runs = await withSystemScope(stack.database.db, (trx) =>
      trx
        .selectFrom('workflow_runs')
        .select([
          'id',
          'is_test',
          'event_id',
          sql<string>`context -> 'event' ->> 'id'`.as('ran_on'),
        ])
        .where('tenant_id', '=', own.tenantId)
        .orderBy('started_at')
        .execute(),
    );
    expect(runs).toHaveLength(before + 1);
    const run = runs[before];
    expect(run).toMatchObject({ is_test: true, event_id: null, ran_on: ann!.id });
    expect(received.slice(sent)).toEqual([`msg_${run.id}_0`]);

    // A trigger nothing has matched yet: the empty state, and nothing to run.
    const created = await sessionClient(stack.url, own.ownerCookie).post(
      '/api/automations/workflows',
      {
        name: 'Refunds to our hook',
        trigger: { event: 'payment.refunded' },
        nodes: [{ type: 'webhook', config: { url: receiverUrl, method: 'POST' } }],
      },
    );
    expect(created.status).toBe(201);
    await page.goto(`/workflows/${created.body.data.workflow.id}`);
    await page.getByRole('radio', { name: 'Recent event' }).check();
    await page.getByText('No recent events the trigger payment.refunded matches').waitFor();
    expect(await page.getByRole('button', { name: 'Run test' }).isDisabled()).toBe(true);
    // Every type shown: the lead events are there to pick.
    await page.getByLabel(/Only events the trigger matches/).uncheck();
    await page.getByLabel('Event to run on (newest first)').waitFor();
    expect(await page.getByRole('button', { name: 'Run test' }).isEnabled()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a viewer reads the workflow and its runs but sees no write action', async () => {
    const context = await browser.newContext({ baseURL: stack.url });
    await addSessionCookies(context, await signIn(stack.gateway.app, own.viewerEmail), stack.url);
    const viewer = await context.newPage();
    await viewer.goto('/workflows');
    await viewer.getByRole('link', { name: 'New leads to our hook' }).waitFor();
    expect(await viewer.getByRole('link', { name: 'New workflow' }).count()).toBe(0);
    await viewer.getByRole('link', { name: 'New leads to our hook' }).click();
    await viewer.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();
    for (const name of ['Edit', 'Disable', 'Enable', 'Rotate signing secret', 'Run test']) {
      expect(await viewer.getByRole('button', { name, exact: true }).count()).toBe(0);
      expect(await viewer.getByRole('link', { name, exact: true }).count()).toBe(0);
    }
    await viewer.getByLabel('Status').selectOption('failed');
    await viewer
      .getByRole('row', { name: /Failed/ })
      .getByRole('link')
      .first()
      .click();
    await viewer.getByText('Replaying a run needs the owner, admin or member role').waitFor();
    expect(await viewer.getByRole('button', { name: /Replay/ }).count()).toBe(0);
    await viewer.goto('/workflows/new');
    await viewer.getByText('a viewer may only read').waitFor();
    expect(await seriousAxeViolations(viewer)).toEqual([]);
    await context.close();
  });
});
