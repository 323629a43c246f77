import { sql } from 'kysely';
import { tenantRowCounts } from '@crm/shared/testing';
import { eventually } from '@crm/test-kit';
import { ownDatabase, type OwnDatabase } from './support/database';
import { leadsBody } from './support/crm-api';
import { recordFigure } from './support/figures';
import { NatsServerProcess } from './support/nats-server';
import { Platform, signedInOwner } from './support/platform';

/*
 * An import of 10,000 leads goes through the gateway; crm-api is SIGKILLed
 * while its transaction is open (seen in pg_stat_activity): the import is all or nothing, because
 * rows, import job and outbox events are written in one transaction. While crm-api is down the
 * gateway answers its routes 503 SERVICE_UNAVAILABLE; started again on the same port, crm-api
 * takes the same import whole through the same gateway process.
 */
const TEST = '4 crm-api killed mid-import';
const LEADS = 10_000;

describe('crm-api killed during a 10,000-lead import', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let platform: Platform | undefined;

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('killed');
  });
  afterAll(async () => {
    await platform?.stop();
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

  it('stores all of the import or none of it, answers 503 while crm-api is down, and takes it whole after a restart', async () => {
    platform = await Platform.start({ DATABASE_URL: database.url, NATS_URL: nats.url }, [
      'crm-api',
    ]);
    const session = await signedInOwner(database.db, platform);
    const importLeads = () =>
      fetch(`${platform?.url}/api/v1/import/leads`, {
        method: 'POST',
        headers: session.headers,
        body: leadsBody(LEADS, 'killed'),
      });
    const before = await tenantRowCounts(database.db, session.tenantId);

    const answer = importLeads().then(
      async (res) => `${res.status} ${((await res.json()) as { code?: string }).code ?? ''}`.trim(),
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
    await platform.service('crm-api').kill();
    const outcome = await answer;
    recordFigure(
      TEST,
      'killed while the import transaction was open',
      String(killedMidTransaction),
    );
    recordFigure(TEST, 'client saw (through the gateway)', outcome);

    // Postgres rolls back the dead connection's transaction once it notices the socket closed.
    await eventually(async () => expect(await importTransactionOpen()).toBe(false), 30_000, 50);
    const after = await tenantRowCounts(database.db, session.tenantId);
    recordFigure(TEST, 'leads stored after the kill', after.crm_leads - before.crm_leads);
    recordFigure(TEST, 'outbox rows after the kill', after.event_outbox - before.event_outbox);
    expect(killedMidTransaction).toBe(true);
    // The gateway had sent the request on, so the client learns the upstream went away: a 503
    // (or its connection closed, had the gateway begun to answer), never a 200 or a 500.
    expect(['503 SERVICE_UNAVAILABLE', 'connection lost']).toContain(outcome);
    expect(after).toEqual(before);

    // Down: the gateway answers crm-api's routes 503 at once, and its own routes still work.
    const whileDown = await fetch(`${platform.url}/api/crm/leads`, { headers: session.headers });
    const downBody = (await whileDown.json()) as { code?: string };
    recordFigure(TEST, 'gateway while crm-api is down', `${whileDown.status} ${downBody.code}`);
    expect([whileDown.status, downBody.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    const me = await fetch(`${platform.url}/api/auth/me`, { headers: session.headers });
    expect(me.status).toBe(200);

    await platform.restart('crm-api');
    const retry = await importLeads();
    expect(retry.status).toBe(200);
    const stored = await tenantRowCounts(database.db, session.tenantId);
    recordFigure(TEST, 'leads stored after restart and retry', stored.crm_leads - before.crm_leads);
    expect(stored.crm_leads - before.crm_leads).toBe(LEADS);
    expect(stored.import_jobs - before.import_jobs).toBe(1);
  });
});
