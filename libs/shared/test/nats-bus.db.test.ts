import { randomUUID } from 'node:crypto';
import { withTenant, type Db } from '@crm/shared/db';
import {
  createEvent,
  NatsBus,
  OutboxRelay,
  writeEvent,
  type EventEnvelope,
} from '@crm/shared/events';
import {
  captureLogger,
  createTenant,
  eventually,
  isolatedTestDb,
  natsUrlForTests,
  startTcpProxy,
} from '@crm/shared/testing';

const natsUrl = natsUrlForTests();
// The global setup prints why when there is no server, and fails instead under REQUIRE_NATS.
const describeWithNats = natsUrl ? describe : describe.skip;

describeWithNats('NATS JetStream bus', () => {
  const logs = captureLogger();
  const buses: NatsBus[] = [];
  let streamName: string;
  let subjectPrefix: string;

  beforeEach(() => {
    // A stream of its own per test, so tests never see each other's events.
    const unique = randomUUID().replace(/-/g, '').slice(0, 12);
    streamName = `TEST_${unique}`;
    subjectPrefix = `test_${unique}.events`;
  });

  afterEach(async () => {
    await buses[0]?.deleteStream().catch(() => undefined);
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });

  async function connectBus(url = natsUrl as string): Promise<NatsBus> {
    const bus = await NatsBus.connect({
      url,
      logger: logs.logger,
      streamName,
      subjectPrefix,
      publishTimeoutMs: 1000,
    });
    buses.push(bus);
    return bus;
  }

  function leadImported(tenantId = randomUUID()): EventEnvelope {
    return createEvent({
      type: 'lead.imported',
      tenant_id: tenantId,
      record: { module: 'leads', id: randomUUID() },
      data: {},
    });
  }

  it('delivers a published event to a durable consumer', async () => {
    const bus = await connectBus();
    const received: EventEnvelope[] = [];
    await bus.subscribe({ durable: 'automation', handler: async (e) => void received.push(e) });
    const event = leadImported();
    expect(await bus.publish(event)).toEqual({ duplicate: false });
    await eventually(() => expect(received).toEqual([event]));
  });

  it('creates the stream idempotently: a second connection reuses it', async () => {
    const first = await connectBus();
    const second = await connectBus();
    const received: string[] = [];
    await first.subscribe({ durable: 'd', handler: async (e) => void received.push(e.id) });
    const event = leadImported();
    await second.publish(event);
    await eventually(() => expect(received).toEqual([event.id]));
  });

  it('consumes an event id published twice only once (server-side deduplication)', async () => {
    const bus = await connectBus();
    const received: string[] = [];
    await bus.subscribe({ durable: 'automation', handler: async (e) => void received.push(e.id) });
    const event = leadImported();
    const other = leadImported();
    expect(await bus.publish(event)).toEqual({ duplicate: false });
    expect(await bus.publish(event)).toEqual({ duplicate: true });
    await bus.publish(other);
    // `other` was published after the duplicate: once it arrives, the duplicate would have too.
    await eventually(() => expect(received).toContain(other.id));
    expect(received).toEqual([event.id, other.id]);
  });

  it('hands a consumer with concurrency 3 up to three events at once', async () => {
    const bus = await connectBus();
    const handled: string[] = [];
    let inHand = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const threeInHand = new Promise<void>((resolve) => (release = resolve));
    await bus.subscribe({
      durable: 'batcher',
      concurrency: 3,
      handler: async (e) => {
        inHand += 1;
        most = Math.max(most, inHand);
        // One at a time, the first event would wait here for ever.
        if (inHand === 3) release();
        await threeInHand;
        inHand -= 1;
        handled.push(e.id);
      },
    });
    const events = Array.from({ length: 7 }, () => leadImported());
    for (const e of events) await bus.publish(e);
    await eventually(() => expect([...handled].sort()).toEqual(events.map((e) => e.id).sort()));
    expect(most).toBe(3);
  });

  it('redelivers an event whose handler throws (nak), then acks it', async () => {
    const bus = await connectBus();
    const attempts: number[] = [];
    await bus.subscribe({
      durable: 'flaky',
      retryDelayMs: 50,
      handler: async (_e, delivery) => {
        attempts.push(delivery.attempt);
        if (delivery.attempt < 3) throw new Error('downstream not ready');
      },
    });
    await bus.publish(leadImported());
    await eventually(() => expect(attempts).toEqual([1, 2, 3]));
  });

  it('gives up after maxDeliver and logs the poison event', async () => {
    const bus = await connectBus();
    let calls = 0;
    await bus.subscribe({
      durable: 'broken',
      maxDeliver: 2,
      retryDelayMs: 20,
      handler: async () => {
        calls++;
        throw new Error('always fails');
      },
    });
    const event = leadImported();
    await bus.publish(event);
    await eventually(() =>
      expect(logs.lines()).toContainEqual(
        expect.objectContaining({ eventId: event.id, consumer: 'broken', attempts: 2 }),
      ),
    );
    expect(calls).toBe(2);
  });

  it('shares a durable between two subscribers: each event handled once', async () => {
    const bus = await connectBus();
    const seen: string[] = [];
    await bus.subscribe({ durable: 'workers', handler: async (e) => void seen.push(e.id) });
    await bus.subscribe({ durable: 'workers', handler: async (e) => void seen.push(e.id) });
    const events = Array.from({ length: 10 }, () => leadImported());
    for (const e of events) await bus.publish(e);
    await eventually(() => expect(seen.length).toBe(10));
    expect(new Set(seen)).toEqual(new Set(events.map((e) => e.id)));
  });

  it('fails a publish in flight as soon as the connection drops, not at its timeout', async () => {
    const { hostname, port } = new URL(natsUrl as string);
    const proxy = await startTcpProxy(hostname, Number(port || 4222));
    try {
      const bus = await NatsBus.connect({
        url: `nats://127.0.0.1:${proxy.port}`,
        logger: logs.logger,
        streamName,
        subjectPrefix,
        // Far longer than the test's own timeout: only the drop can end this publish in time.
        publishTimeoutMs: 60_000,
      });
      buses.push(bus);
      await bus.publish(leadImported()); // the stream exists and answers
      const inFlight = bus.publish(leadImported());
      await proxy.cut();
      await expect(inFlight).rejects.toThrow(
        'NATS connection lost before the publish was acknowledged',
      );
      expect(bus.isConnected()).toBe(false);
      await expect(bus.publish(leadImported())).rejects.toThrow('NATS is disconnected');
    } finally {
      await proxy.close();
    }
  });

  describe('with the outbox', () => {
    let database: Db;
    beforeAll(async () => {
      database = await isolatedTestDb();
    });
    afterAll(() => database.close());

    it('delivers every event written while NATS was down once NATS is back', async () => {
      const tenant = await createTenant(database);
      const { hostname, port } = new URL(natsUrl as string);
      const proxy = await startTcpProxy(hostname, Number(port || 4222));
      try {
        const bus = await connectBus(`nats://127.0.0.1:${proxy.port}`);
        const received = new Set<string>();
        let deliveries = 0;
        await bus.subscribe({
          durable: 'automation',
          handler: async (e) => {
            deliveries++;
            received.add(e.id);
          },
        });
        const relay = new OutboxRelay({
          db: database.db,
          pool: database.pool,
          bus,
          logger: logs.logger,
          pollIntervalMs: 100,
        });
        await relay.start();
        try {
          await proxy.cut(); // NATS is now unreachable for this bus.
          const written = await withTenant(database.db, tenant.id, async (trx) => {
            const ids: string[] = [];
            for (let n = 0; n < 20; n++) {
              ids.push(
                (
                  await writeEvent(trx, {
                    type: 'lead.imported',
                    tenant_id: tenant.id,
                    record: { module: 'leads', id: `l${n}` },
                    data: { n },
                  })
                ).id,
              );
            }
            return ids;
          });
          // While NATS is down the outbox holds them, unpublished.
          await new Promise((r) => setTimeout(r, 300));
          const pending = await database.db
            .selectFrom('event_outbox')
            .select('id')
            .where('tenant_id', '=', tenant.id)
            .where('published_at', 'is', null)
            .execute();
          expect(pending).toHaveLength(20);
          await proxy.restore();
          await eventually(() => expect([...received].sort()).toEqual([...written].sort()), 20_000);
          // Publishes the client buffered during the outage may land before the relay's retry
          // marks them; the retry is dropped as a duplicate and then every row is marked.
          await eventually(async () => {
            const unpublished = await database.db
              .selectFrom('event_outbox')
              .select('id')
              .where('tenant_id', '=', tenant.id)
              .where('published_at', 'is', null)
              .execute();
            expect(unpublished).toEqual([]);
          }, 20_000);
          // Each event reached the consumer once, however often it was published.
          expect(deliveries).toBe(20);
        } finally {
          await relay.stop();
        }
      } finally {
        await proxy.close();
      }
    }, 30_000);
  });
});
