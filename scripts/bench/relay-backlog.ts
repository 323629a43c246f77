/**
 * The outbox relay draining a backlog into JetStream, beside its bare baseline in the same run:
 * the same envelopes published straight to a stream with the `nats` client, 500 acknowledgements
 * in flight. The ratio (relay / bare) is the figure to watch; both numbers move with the machine.
 */
import { randomUUID } from 'node:crypto';
import { connect, JSONCodec, RetentionPolicy, StorageType } from 'nats';
import { withSystemScope, withTenant, type Db } from '../../libs/shared/src/db';
import {
  NatsBus,
  OutboxRelay,
  writeEvents,
  type EventEnvelope,
} from '../../libs/shared/src/events';
import { silentLogger } from '../../libs/shared/src/logger';

export interface BacklogResult {
  name: string;
  operations: number;
  seconds: number;
  perSecond: number;
}

const IN_FLIGHT = 500;

function result(name: string, events: number, ms: number): BacklogResult {
  return {
    name,
    operations: events,
    seconds: Number((ms / 1000).toFixed(3)),
    perSecond: Math.round(events / (ms / 1000)),
  };
}

/** Writes `events` outbox rows (no relay running) and returns their envelopes. */
async function writeBacklog(database: Db, tenantId: string, events: number) {
  const envelopes: EventEnvelope[] = [];
  for (let start = 0; start < events; start += 5000) {
    const chunk = Array.from({ length: Math.min(5000, events - start) }, (_, n) => ({
      type: 'bench.backlog',
      tenant_id: tenantId,
      record: { module: 'bench', id: String(start + n) },
      data: { n: start + n },
    }));
    envelopes.push(...(await withTenant(database.db, tenantId, (trx) => writeEvents(trx, chunk))));
  }
  return envelopes;
}

async function unpublished(database: Db): Promise<number> {
  const row = await withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('event_outbox')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('published_at', 'is', null)
      .executeTakeFirstOrThrow(),
  );
  return Number(row.n);
}

async function relayDrain(database: Db, natsUrl: string, tenantId: string, events: number) {
  const bus = await NatsBus.connect({
    url: natsUrl,
    logger: silentLogger(),
    streamName: `BENCH_RELAY_${process.pid}`,
    subjectPrefix: `bench_relay_${process.pid}.events`,
  });
  try {
    await writeBacklog(database, tenantId, events);
    const relay = new OutboxRelay({
      db: database.db,
      pool: database.pool,
      bus,
      logger: silentLogger(),
      pollIntervalMs: 50,
    });
    const start = performance.now();
    await relay.start();
    while ((await unpublished(database)) > 0) await new Promise((r) => setTimeout(r, 20));
    const ms = performance.now() - start;
    await relay.stop();
    return result(`outbox relay drains a ${events}-event backlog into JetStream`, events, ms);
  } finally {
    await bus.deleteStream();
    await bus.close();
  }
}

async function barePublish(natsUrl: string, tenantId: string, events: number) {
  const nc = await connect({ servers: natsUrl });
  const jsm = await nc.jetstreamManager();
  const stream = `BENCH_BARE_${process.pid}`;
  const subject = `bench_bare_${process.pid}`;
  await jsm.streams.add({
    name: stream,
    subjects: [`${subject}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
  });
  const js = nc.jetstream();
  const codec = JSONCodec();
  const payloads = Array.from({ length: events }, (_, n) => ({
    id: randomUUID(),
    type: 'bench.backlog',
    tenant_id: tenantId,
    occurred_at: new Date().toISOString(),
    record: { module: 'bench', id: String(n) },
    data: { n },
    trace: {},
  }));
  try {
    const start = performance.now();
    for (let i = 0; i < events; i += IN_FLIGHT) {
      await Promise.all(
        payloads
          .slice(i, i + IN_FLIGHT)
          .map((p) => js.publish(`${subject}.bench.backlog`, codec.encode(p), { msgID: p.id })),
      );
    }
    const ms = performance.now() - start;
    return result(`bare JetStream publish, ${IN_FLIGHT} in flight (baseline)`, events, ms);
  } finally {
    await jsm.streams.delete(stream);
    await nc.close();
  }
}

/** Relay and bare baseline, alternated twice; returns all four results. */
export async function relayBacklog(
  database: Db,
  natsUrl: string,
  tenantId: string,
  events = 20_000,
): Promise<BacklogResult[]> {
  const results: BacklogResult[] = [];
  for (let round = 0; round < 2; round++) {
    results.push(await barePublish(natsUrl, tenantId, events));
    results.push(await relayDrain(database, natsUrl, tenantId, events));
  }
  return results;
}
