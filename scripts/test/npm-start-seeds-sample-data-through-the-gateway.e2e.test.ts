import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createDb, type Db } from '../../libs/shared/src/db';
import { eventually, outboxEvents } from '../../libs/shared/src/testing';
import { freeServicePorts, freshDatabase, startAll } from './support/start-all-process';
import { SAMPLE_SIZES } from '../dev/sample-data/generate';

/**
 * `npm start` gives the demo tenant a small believable CRM (leads and contacts with
 * sources and statuses, deals across the stages, a web form with submissions, a workflow whose
 * run history shows real runs, an MCP key), written through the platform's own write paths so
 * the events are in the outbox; once per database; `--no-sample-data` starts empty.
 */
const DEMO = { email: 'demo@example.com', password: 'demo-password' };
const STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'];

/** A run's checks, then SIGTERM, whatever they found: the start is never left running. */
function stopWhenDone(
  checks: (stdout: () => string) => Promise<void>,
): Parameters<typeof startAll>[1] {
  return async (stdout, kill) => {
    try {
      await checks(stdout);
    } finally {
      kill('SIGTERM');
    }
  };
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
  const databases: Array<{ drop(): Promise<void> }> = [];

  async function freshStart(): Promise<{
    env: Record<string, string>;
    db: Client;
    readDb: Db;
    url: string;
  }> {
    const database = await freshDatabase();
    databases.push(database);
    const env: Record<string, string> = {
      DATABASE_URL: database.url,
      // The profile's secrets file there, never in the developer's .data/.
      DEV_DATA_DIR: mkdtempSync(join(tmpdir(), 'npm-start-sample-')),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...(await freeServicePorts(['ECHO_RECEIVER_PORT'])),
    };
    const db = new Client({ connectionString: database.url });
    await db.connect();
    // The test kit's read-backs take a Db: one connection is enough for them.
    const readDb = createDb({ connectionString: database.url, maxConnections: 1 });
    return { env, db, readDb, url: `http://127.0.0.1:${env.GATEWAY_PORT}` };
  }

  /** Events the demo tenant's writes put in the outbox, by type (each event of a batch row). */
  async function demoEventsByType(db: Client, readDb: Db): Promise<Record<string, number>> {
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM tenants WHERE slug = 'demo'`);
    const counts: Record<string, number> = {};
    for (const { id } of rows) {
      for (const { type } of await outboxEvents(readDb, id)) counts[type] = (counts[type] ?? 0) + 1;
    }
    return counts;
  }

  async function count(db: Client, table: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${table} x JOIN tenants t ON t.id = x.tenant_id WHERE t.slug = 'demo'`,
    );
    return Number(rows[0].n);
  }

  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it('writes a small CRM through the platform once, with real workflow runs, and a second start adds nothing', async () => {
    const { env, db, readDb, url } = await freshStart();
    try {
      let first: Awaited<ReturnType<typeof demoTenant>> | undefined;
      const started = await startAll(
        env,
        stopWhenDone(async (stdout) => {
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
        }),
      );
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
      expect(await demoEventsByType(db, readDb)).toMatchObject({
        'lead.created': tenant.leads,
        'contact.created': SAMPLE_SIZES.contacts,
        'deal.created': SAMPLE_SIZES.deals,
        'form.submitted': SAMPLE_SIZES.submissions,
      });
      // Off a terminal the MCP key is never written (only the banner shows it, once).
      expect(started.stdout + started.stderr).not.toMatch(/crm_mcp_[A-Za-z0-9_-]{20,}/);
      expect(logLines(started.stdout).filter((l) => l.level === 'error')).toEqual([]);

      const eventsBefore = await demoEventsByType(db, readDb);
      const again = await startAll(
        env,
        stopWhenDone(async (stdout) => {
          expect((await untilRunning(stdout)).sampleData).toBe('already present');
          const tenantAgain = await demoTenant(await demoApi(url));
          expect(tenantAgain.leads).toBe(tenant.leads);
          expect(tenantAgain.deals).toHaveLength(SAMPLE_SIZES.deals);
          expect(tenantAgain.forms.total).toBe(1);
          expect(tenantAgain.workflows.total).toBe(1);
          expect(tenantAgain.keys).toBe(1);
          expect(tenantAgain.runs.total).toBe(SAMPLE_SIZES.submissions + 1);
        }),
      );
      expect(again.code).toBe(0);
      expect(await count(db, 'crm_contacts')).toBe(SAMPLE_SIZES.contacts);
      expect(await demoEventsByType(db, readDb)).toEqual(eventsBefore);
    } finally {
      await db.end();
      await readDb.close();
    }
  }, 240_000);

  it('--no-sample-data starts with the demo tenant empty (the echo receiver still answers)', async () => {
    const { env, db, readDb, url } = await freshStart();
    try {
      const started = await startAll(
        env,
        stopWhenDone(async (stdout) => {
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
        }),
        ['--no-sample-data'],
      );
      expect(started.code).toBe(0);
      expect(await count(db, 'crm_contacts')).toBe(0);
      expect(await demoEventsByType(db, readDb)).toEqual({});
    } finally {
      await db.end();
      await readDb.close();
    }
  }, 120_000);
});
