import pino from 'pino';
import { NatsBus } from '@crm/shared/events';
import { eventually } from '@crm/test-kit';
import { ownDatabase, type OwnDatabase } from './support/database';
import { leadsBody } from './support/crm-api';
import { recordFigure } from './support/figures';
import { NatsServerProcess } from './support/nats-server';
import { Platform, signedInOwner } from './support/platform';

/*
 * The broker is stopped while 10,000 leads are imported through the gateway
 * into crm-api: the imports are answered anyway (the events wait in the outbox, written in the
 * same transaction as the rows), and once NATS is back the relay publishes them and a durable consumer gets each event exactly
 * once. The consumer is the test's own, on the suite's nats-server, counting by event id.
 */
const TEST = '1 broker outage';
const LEADS = 10_000;
const REQUESTS = 10;

describe('NATS stopped during a 10,000-lead import', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let platform: Platform | undefined;
  let consumerBus: NatsBus | undefined;

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('broker');
  });
  afterAll(async () => {
    await platform?.stop();
    await consumerBus?.close();
    await nats.close();
    await database.drop();
  });

  it('answers every import 200 and delivers every event exactly once after NATS returns', async () => {
    platform = await Platform.start({ DATABASE_URL: database.url, NATS_URL: nats.url }, [
      'crm-api',
    ]);
    const session = await signedInOwner(database.db, platform);

    const deliveries = new Map<string, number>();
    let lastDeliveryAt = 0;
    consumerBus = await NatsBus.connect({ url: nats.url, logger: pino({ level: 'silent' }) });
    await consumerBus.subscribe({
      durable: 'reliability-broker-outage',
      types: ['lead.created'],
      handler: async (event) => {
        deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
        lastDeliveryAt = Date.now();
      },
    });

    await nats.stop();
    const statuses: number[] = [];
    const importStarted = Date.now();
    for (let r = 0; r < REQUESTS; r++) {
      const res = await fetch(`${platform.url}/api/v1/import/leads`, {
        method: 'POST',
        headers: session.headers,
        body: leadsBody(LEADS / REQUESTS, `outage-${r}`),
      });
      statuses.push(res.status);
      const body = (await res.json()) as { imported?: number };
      expect(body.imported).toBe(LEADS / REQUESTS);
    }
    recordFigure(
      TEST,
      'imports answered while NATS down',
      `${statuses.filter((s) => s === 200).length}/${REQUESTS} x ${LEADS / REQUESTS} leads`,
    );
    recordFigure(TEST, 'import time while NATS down (ms)', Date.now() - importStarted);
    expect(statuses).toEqual(Array(REQUESTS).fill(200));
    expect(deliveries.size).toBe(0);

    const natsBackAt = Date.now();
    await nats.resume();
    await eventually(() => expect(deliveries.size).toBe(LEADS), 60_000, 50);
    const recovery = lastDeliveryAt - natsBackAt;
    // A short wait for stragglers: a duplicate would show up as a second delivery of an id.
    await new Promise((r) => setTimeout(r, 2000));
    const repeated = [...deliveries.values()].filter((n) => n > 1).length;
    recordFigure(TEST, 'events delivered (distinct ids)', deliveries.size);
    recordFigure(TEST, 'events delivered more than once', repeated);
    recordFigure(TEST, 'NATS return -> last delivery (ms)', recovery);

    expect(repeated).toBe(0);
    expect(recovery).toBeLessThan(5000);
  });
});
