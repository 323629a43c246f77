import { sql } from 'kysely';
import { tenantRowCounts } from '@crm/shared/testing';
import { eventually } from '@crm/test-kit';
import { ownDatabase, type OwnDatabase } from './support/database';
import { leadsBody, startCrmApi, startCrmApiAs, type CrmApi } from './support/crm-api';
import { recordFigure } from './support/figures';
import { NatsServerProcess } from './support/nats-server';

/*
 * Issue 17, item 4. crm-api is SIGKILLed while its transaction for a 10,000-lead import is open
 * (seen in pg_stat_activity): the import is all or nothing, because rows, import job and outbox
 * events are written in one transaction. Started again on the same port, it takes the same
 * import whole. Not covered here: the gateway in front answering 503 while crm-api is down.
 */
const TEST = '4 crm-api killed mid-import';
const LEADS = 10_000;

describe('crm-api killed during a 10,000-lead import', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let crmApi: CrmApi | undefined;

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('killed');
  });
  afterAll(async () => {
    await crmApi?.service.stop();
    await nats.close();
    await database.drop();
  });

  /** True while a transaction of crm-api on this database is writing leads. */
  async function importTransactionOpen(): Promise<boolean> {
    const dbName = new URL(database.url).pathname.slice(1);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM pg_stat_activity
      WHERE datname = ${dbName} AND xact_start IS NOT NULL AND pid <> pg_backend_pid()
        AND query ILIKE '%crm_leads%'`.execute(database.db.db);
    return Number(rows[0].n) > 0;
  }

  it('stores all of the import or none of it, and takes it whole after a restart', async () => {
    const env = { DATABASE_URL: database.url, NATS_URL: nats.url };
    crmApi = await startCrmApi(database.db, env);
    const before = await tenantRowCounts(database.db, crmApi.tenantId);

    const answer = fetch(`${crmApi.baseUrl}/api/v1/import/leads`, {
      method: 'POST',
      headers: crmApi.headers,
      body: leadsBody(LEADS, 'killed'),
    }).then(
      (res) => `status ${res.status}`,
      () => 'connection lost',
    );
    let killedMidTransaction = false;
    await eventually(
      async () => {
        killedMidTransaction = await importTransactionOpen();
        expect(killedMidTransaction).toBe(true);
      },
      30_000,
      5,
    ).catch(() => undefined);
    await crmApi.service.kill();
    const outcome = await answer;
    recordFigure(
      TEST,
      'killed while the import transaction was open',
      String(killedMidTransaction),
    );
    recordFigure(TEST, 'client saw', outcome);

    // Postgres rolls back the dead connection's transaction once it notices the socket closed.
    await eventually(async () => expect(await importTransactionOpen()).toBe(false), 30_000, 50);
    const after = await tenantRowCounts(database.db, crmApi.tenantId);
    const leads = after.crm_leads - before.crm_leads;
    const events = after.event_outbox - before.event_outbox;
    recordFigure(TEST, 'leads stored after the kill', leads);
    recordFigure(TEST, 'outbox rows after the kill', events);
    expect(killedMidTransaction).toBe(true);
    expect(outcome).toBe('connection lost');
    expect(after).toEqual(before);

    crmApi = await startCrmApiAs(env, crmApi, crmApi.port);
    const retry = await fetch(`${crmApi.baseUrl}/api/v1/import/leads`, {
      method: 'POST',
      headers: crmApi.headers,
      body: leadsBody(LEADS, 'killed'),
    });
    expect(retry.status).toBe(200);
    const stored = await tenantRowCounts(database.db, crmApi.tenantId);
    recordFigure(TEST, 'leads stored after restart and retry', stored.crm_leads - before.crm_leads);
    expect(stored.crm_leads - before.crm_leads).toBe(LEADS);
    expect(stored.import_jobs - before.import_jobs).toBe(1);
  });
});
