import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { dropDatabase, ensureDatabase, withDatabase } from '../../libs/shared/src/db';
import { eventually } from '../../libs/shared/src/testing';
import { freePort } from '../dev/embedded-postgres';
import { PORT_VARIABLES } from '../dev/ports';
import { SAMPLE_SIZES } from '../dev/sample-data/generate';

/**
 * `npm start` gives the demo tenant a small believable CRM (specified: leads and contacts with
 * sources and statuses, deals across the stages, a web form with submissions, a workflow whose
 * run history shows real runs, an MCP key), written through the platform's own write paths so
 * the events are in the outbox; once per database; `--no-sample-data` starts empty.
 */
const ROOT = join(__dirname, '..', '..');
const DEMO = { email: 'demo@example.com', password: 'demo-password' };
const STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'];

interface Started {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm start` (scripts/start-all.ts) with `args`, as its own process with exactly `env` (plus PATH). */
function startAll(
  env: Record<string, string>,
  args: string[],
  until: (stdout: () => string) => Promise<void>,
): Promise<Started> {
  const child = spawn(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['scripts/start-all.ts', ...args],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close': the exit code and every byte the process wrote (its pipes are drained).
  const exited = new Promise<Started>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return (async () => {
    try {
      let checked = false;
      const early = exited.then((r) => {
        if (checked) return;
        throw new Error(`npm start exited (${r.code}) early: ${r.stderr || r.stdout.slice(-2000)}`);
      });
      // The race reports an early exit; a failed check's own exit must not go unhandled.
      early.catch(() => undefined);
      await Promise.race([until(() => stdout).then(() => void (checked = true)), early]);
    } finally {
      // Stopped whatever the checks found; never left running.
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    }
    return exited;
  })();
}

type LogLine = Record<string, unknown>;
/** The complete JSON lines so far (the last may still be arriving). */
const logLines = (stdout: string): LogLine[] =>
  stdout
    .slice(0, stdout.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);
const runningLine = (stdout: string) =>
  logLines(stdout).find((l) => l.msg === 'CRM platform is running');

async function untilRunning(stdout: () => string): Promise<LogLine> {
  return eventually(
    () => {
      const line = runningLine(stdout());
      if (!line) throw new Error('not running yet');
      return line;
    },
    90_000,
    100,
  );
}

/** The demo user's session, through the gateway. */
async function demoApi(gatewayUrl: string) {
  const res = await fetch(`${gatewayUrl}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(DEMO),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return async <T>(path: string): Promise<T> => {
    const answer = await fetch(`${gatewayUrl}${path}`, { headers: { cookie } });
    expect([path, answer.status]).toEqual([path, 200]);
    return (await answer.json()) as T;
  };
}
type Api = Awaited<ReturnType<typeof demoApi>>;
type Page<T = Record<string, unknown>> = { items: T[]; total: number };
type Run = { status: string; is_test: boolean; event_type: string };

/** What the demo tenant holds, as its user reads it through the gateway. */
async function demoTenant(api: Api) {
  const leads = await api<Page>('/api/crm/leads?pageSize=1');
  const deals = await api<{ deals: Array<{ stage: string; lead_id: string | null }> }>(
    '/api/crm/deals?limit=1000',
  );
  const forms = await api<Page<{ slug: string }>>('/api/crm/forms');
  const workflows = await api<Page<{ id: string }>>('/api/automations/workflows');
  // Unlike the other lists, this one answers inside the success envelope `{ success, data }`.
  const keys = await api<{ data: Page }>('/api/mcp/keys');
  const runs = workflows.items[0]
    ? await api<Page<Run>>(`/api/automations/workflows/${workflows.items[0].id}/runs?pageSize=100`)
    : { items: [] as Run[], total: 0 };
  return { leads: leads.total, deals: deals.deals, forms, workflows, keys: keys.data.total, runs };
}

describe('npm start sample data (spawned)', () => {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL as string;
  const template = process.env.TEST_TEMPLATE_DATABASE as string;
  const created: string[] = [];

  async function freshStart(): Promise<{ env: Record<string, string>; db: Client; url: string }> {
    const name = `${template.replace(/_tpl$/, '')}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
    await ensureDatabase(adminUrl, name, template);
    created.push(name);
    const env: Record<string, string> = {
      DATABASE_URL: withDatabase(adminUrl, name),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    };
    for (const variable of [...Object.values(PORT_VARIABLES), 'ECHO_RECEIVER_PORT']) {
      env[variable] = String(await freePort());
    }
    const db = new Client({ connectionString: withDatabase(adminUrl, name) });
    await db.connect();
    return { env, db, url: `http://127.0.0.1:${env.GATEWAY_PORT}` };
  }

  /** Events the demo tenant's writes put in the outbox, by type (batched rows counted in full). */
  async function outboxEvents(db: Client): Promise<Record<string, number>> {
    const { rows } = await db.query<{ type: string; events: string }>(
      `SELECT o.type, sum(o.event_count) AS events FROM event_outbox o
         JOIN tenants t ON t.id = o.tenant_id WHERE t.slug = 'demo' GROUP BY o.type`,
    );
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.events)]));
  }

  async function count(db: Client, table: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${table} x JOIN tenants t ON t.id = x.tenant_id WHERE t.slug = 'demo'`,
    );
    return Number(rows[0].n);
  }

  afterAll(async () => {
    for (const name of created) await dropDatabase(adminUrl, name);
  });

  it('writes a small CRM through the platform once, with real workflow runs, and a second start adds nothing', async () => {
    const { env, db, url } = await freshStart();
    try {
      let first: Awaited<ReturnType<typeof demoTenant>> | undefined;
      const started = await startAll(env, [], async (stdout) => {
        const running = await untilRunning(stdout);
        expect(running.sampleData).toBe('seeded');
        const api = await demoApi(url);
        // One run per form submission sent to the echo receiver (answered 2xx), and the test run.
        first = await eventually(
          async () => {
            const tenant = await demoTenant(api);
            const real = tenant.runs.items.filter((r) => !r.is_test);
            expect(real).toHaveLength(SAMPLE_SIZES.submissions);
            expect(tenant.runs.items.map((r) => r.status)).toEqual(
              Array(SAMPLE_SIZES.submissions + 1).fill('success'),
            );
            return tenant;
          },
          30_000,
          200,
        );
        // The receiver's log lines come through a pipe, maybe after the API's answer.
        await eventually(() => {
          const verified = logLines(stdout()).filter(
            (l) => l.msg === 'echo receiver got a webhook' && l.signatureCheck === 'verified',
          );
          expect(verified).toHaveLength(SAMPLE_SIZES.submissions + 1);
        });
      });
      expect(started.code).toBe(0);
      const tenant = first!;
      // Leads: the import's, plus the form's newcomers (returning submitters are the same lead).
      expect(tenant.leads).toBeGreaterThan(SAMPLE_SIZES.leads);
      expect(tenant.leads).toBeLessThanOrEqual(SAMPLE_SIZES.leads + SAMPLE_SIZES.submissions);
      expect(tenant.deals).toHaveLength(SAMPLE_SIZES.deals);
      expect(new Set(tenant.deals.map((d) => d.stage))).toEqual(new Set(STAGES));
      expect(tenant.deals.filter((d) => d.lead_id).length).toBeGreaterThan(0);
      expect(tenant.forms.items.map((f) => f.slug)).toEqual(['contact-us']);
      expect(tenant.workflows.total).toBe(1);
      expect(tenant.keys).toBe(1);
      expect(tenant.runs.items.filter((r) => r.is_test)).toHaveLength(1);
      expect(await count(db, 'crm_contacts')).toBe(SAMPLE_SIZES.contacts);
      expect(await count(db, 'crm_form_submissions')).toBe(SAMPLE_SIZES.submissions);
      const { rows: mix } = await db.query<{ statuses: string; sources: string }>(
        `SELECT count(DISTINCT status) AS statuses, count(DISTINCT source) AS sources
           FROM crm_leads l JOIN tenants t ON t.id = l.tenant_id WHERE t.slug = 'demo'`,
      );
      expect(Number(mix[0].statuses)).toBe(6);
      expect(Number(mix[0].sources)).toBeGreaterThanOrEqual(6);
      // Through the write paths: every record's event went through the outbox.
      expect(await outboxEvents(db)).toMatchObject({
        'lead.created': tenant.leads,
        'contact.created': SAMPLE_SIZES.contacts,
        'deal.created': SAMPLE_SIZES.deals,
        'form.submitted': SAMPLE_SIZES.submissions,
      });
      // Off a terminal the MCP key is never written (only the banner shows it, once).
      expect(started.stdout + started.stderr).not.toMatch(/crm_mcp_[A-Za-z0-9_-]{20,}/);
      expect(logLines(started.stdout).filter((l) => l.level === 'error')).toEqual([]);

      const eventsBefore = await outboxEvents(db);
      const again = await startAll(env, [], async (stdout) => {
        expect((await untilRunning(stdout)).sampleData).toBe('already present');
        const tenantAgain = await demoTenant(await demoApi(url));
        expect(tenantAgain.leads).toBe(tenant.leads);
        expect(tenantAgain.deals).toHaveLength(SAMPLE_SIZES.deals);
        expect(tenantAgain.forms.total).toBe(1);
        expect(tenantAgain.workflows.total).toBe(1);
        expect(tenantAgain.keys).toBe(1);
        expect(tenantAgain.runs.total).toBe(SAMPLE_SIZES.submissions + 1);
      });
      expect(again.code).toBe(0);
      expect(await count(db, 'crm_contacts')).toBe(SAMPLE_SIZES.contacts);
      expect(await outboxEvents(db)).toEqual(eventsBefore);
    } finally {
      await db.end();
    }
  }, 240_000);

  it('--no-sample-data starts with the demo tenant empty (the echo receiver still answers)', async () => {
    const { env, db, url } = await freshStart();
    try {
      const started = await startAll(env, ['--no-sample-data'], async (stdout) => {
        expect((await untilRunning(stdout)).sampleData).toBe('off');
        const tenant = await demoTenant(await demoApi(url));
        expect(tenant).toMatchObject({ leads: 0, deals: [], keys: 0 });
        expect(tenant.forms.total).toBe(0);
        expect(tenant.workflows.total).toBe(0);
        const echo = await fetch(`http://127.0.0.1:${env.ECHO_RECEIVER_PORT}/anything`, {
          method: 'POST',
          body: '{}',
        });
        expect(echo.status).toBe(200);
      });
      expect(started.code).toBe(0);
      expect(await count(db, 'crm_contacts')).toBe(0);
      expect(await outboxEvents(db)).toEqual({});
    } finally {
      await db.end();
    }
  }, 120_000);
});
