import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { freePortForTests, eventually } from '@crm/test-kit';
import { ownDatabase, type OwnDatabase } from './support/database';
import { INTERNAL_SECRET, leadsBody, startCrmApi, type CrmApi } from './support/crm-api';
import { recordFigure } from './support/figures';
import { NatsServerProcess } from './support/nats-server';
import { ServiceProcess } from './support/service-process';

/*
 * 1,000 imported leads each fire a webhook workflow; the automation process
 * is SIGKILLed once the receiver has some of the sends, and started again. docs/automations.md:
 * runs are recorded (unique per workflow and event) before the sends, the event is acked after,
 * so every event ends with exactly one run, a redelivery never sends again (no duplicates), and
 * a run caught by the crash stays `running` and may have lost its send: the crash window.
 */
const TEST = '2 consumer crash (automation)';
const EVENTS = 1000;
/**
 * The receiver answers after this long, as a real endpoint would: with an instant one the kill
 * mostly lands between sends and the crash window is empty, which proves nothing about it.
 */
const RECEIVER_DELAY_MS = 20;

describe('automation killed in the middle of 1,000 webhook-triggering events', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let crmApi: CrmApi | undefined;
  let automation: ServiceProcess | undefined;
  let receiver: Server;
  const sends = new Map<string, number>();

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('crash');
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const email = /lead-\d+@crash\.example/.exec(body)?.[0] ?? 'unknown';
        sends.set(email, (sends.get(email) ?? 0) + 1);
        setTimeout(() => res.end('ok'), RECEIVER_DELAY_MS);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await automation?.stop();
    await crmApi?.service.stop();
    receiver.close();
    await nats.close();
    await database.drop();
  });

  it('gives every event exactly one run and sends each at most once', async () => {
    const env = { DATABASE_URL: database.url, NATS_URL: nats.url };
    crmApi = await startCrmApi(database.db, env);
    const port = await freePortForTests();
    const automationEnv = {
      ...env,
      INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
      AUTOMATION_PORT: String(port),
      HOST: '127.0.0.1',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    automation = await ServiceProcess.start('automation', automationEnv);
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const created = await fetch(`http://127.0.0.1:${port}/api/automations/workflows`, {
      method: 'POST',
      headers: crmApi.headers,
      body: JSON.stringify({
        name: 'Every new lead',
        trigger: { event: 'lead.created' },
        nodes: [{ type: 'webhook', config: { url: hookUrl, method: 'POST' } }],
      }),
    });
    expect(created.status).toBe(201);

    const imported = await fetch(`${crmApi.baseUrl}/api/v1/import/leads`, {
      method: 'POST',
      headers: crmApi.headers,
      body: leadsBody(EVENTS, 'crash'),
    });
    expect(imported.status).toBe(200);

    // Killed in the middle: some sends done, most to come.
    await eventually(() => expect(sends.size).toBeGreaterThanOrEqual(EVENTS / 5), 60_000, 5);
    await automation.kill();
    const sentBeforeKill = [...sends.values()].reduce((a, b) => a + b, 0);
    automation = await ServiceProcess.start('automation', automationEnv);

    const runs = async () =>
      (
        await sql<{ n: string; events: string; running: string }>`
          SELECT count(*)::text AS n, count(DISTINCT event_id)::text AS events,
                 count(*) FILTER (WHERE status = 'running')::text AS running
          FROM workflow_runs WHERE tenant_id = ${crmApi?.tenantId}`.execute(database.db.db)
      ).rows[0];
    // Done when every event has its run and only the crash's runs are still `running`.
    let last = '';
    await eventually(
      async () => {
        const r = await runs();
        const now = JSON.stringify(r);
        const settled = now === last;
        last = now;
        expect(Number(r.events)).toBe(EVENTS);
        expect(settled).toBe(true);
      },
      120_000,
      1000,
    );
    const final = await runs();
    const repeated = [...sends.values()].filter((n) => n > 1).length;
    // Which leads never reached the receiver, and which runs the crash left `running` (a run's
    // record_id is its lead's id).
    const leads = await sql<{ email: string; running: boolean }>`
      SELECT l.email, bool_or(r.status = 'running') AS running
      FROM crm_leads l JOIN workflow_runs r ON r.record_id = l.id::text
      WHERE l.tenant_id = ${crmApi.tenantId}
      GROUP BY l.email`.execute(database.db.db);
    expect(leads.rows).toHaveLength(EVENTS);
    const lostLeads = leads.rows.filter((l) => !sends.has(l.email));
    const lost = lostLeads.length;
    recordFigure(TEST, 'sends before the kill', sentBeforeKill);
    recordFigure(TEST, 'runs / distinct events', `${final.n} / ${final.events}`);
    recordFigure(TEST, 'runs left running (crash window)', final.running);
    recordFigure(TEST, 'sends lost in the crash window', lost);
    recordFigure(TEST, 'sends repeated', repeated);

    expect(Number(final.n)).toBe(EVENTS);
    expect(sends.get('unknown')).toBeUndefined();
    expect(repeated).toBe(0);
    // docs/automations.md: a lost send is a run the crash left `running`, never anything else.
    expect(lostLeads.filter((l) => !l.running)).toEqual([]);
    expect(lost).toBeLessThanOrEqual(Number(final.running));
    // The kill did land inside the window it is meant to test.
    expect(Number(final.running)).toBeGreaterThan(0);
  });
});
