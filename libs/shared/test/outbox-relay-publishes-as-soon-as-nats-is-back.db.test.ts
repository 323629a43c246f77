import { randomUUID } from 'node:crypto';
import { withSystemScope, withTenant, type Db } from '@crm/shared/db';
import { NatsBus, OutboxRelay, outboxHealthCheck, writeEvents } from '@crm/shared/events';
import {
  captureLogger,
  createTenant,
  eventually,
  isolatedTestDb,
  natsUrlForTests,
  startTcpProxy,
  type TcpProxy,
} from '@crm/shared/testing';

const natsUrl = natsUrlForTests();
// The global setup prints why when there is no server, and fails instead under REQUIRE_NATS.
const describeWithNats = natsUrl ? describe : describe.skip;

/**
 * After an outage the relay used to wait out its backoff (up to 30 s) before
 * publishing what had piled up. It now wakes on the bus's reconnect; meanwhile the health check
 * reports the events down with the age of the oldest one waiting.
 */
describeWithNats('outbox relay and event health across a NATS outage (real NATS)', () => {
  const logs = captureLogger();
  let database: Db;
  let proxy: TcpProxy;
  let bus: NatsBus;
  let relay: OutboxRelay;

  beforeAll(async () => {
    database = await isolatedTestDb();
    const { hostname, port } = new URL(natsUrl as string);
    proxy = await startTcpProxy(hostname, Number(port || 4222));
    const unique = randomUUID().replace(/-/g, '').slice(0, 12);
    bus = await NatsBus.connect({
      url: `nats://127.0.0.1:${proxy.port}`,
      logger: logs.logger,
      streamName: `TEST_${unique}`,
      subjectPrefix: `test_${unique}.events`,
      publishTimeoutMs: 1000,
    });
  });
  afterAll(async () => {
    await relay?.stop();
    await proxy.restore().catch(() => undefined);
    await bus.deleteStream().catch(() => undefined);
    await bus.close();
    await proxy.close();
    await database.close();
  });

  async function unpublished(tenantId: string) {
    return withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('event_outbox')
        .select(['id', 'last_error'])
        .where('tenant_id', '=', tenantId)
        .where('published_at', 'is', null)
        .orderBy('seq')
        .execute(),
    );
  }

  it('publishes what waited as soon as NATS is back, and health says down with the age until then', async () => {
    const tenant = await createTenant(database);
    const received = new Set<string>();
    await bus.subscribe({ durable: 'outage', handler: async (e) => void received.add(e.id) });
    // Poll and backoff of a minute: once a round has failed, neither can explain a publish
    // within seconds of the restore, and no write happens after it to send a NOTIFY. Only the
    // reconnect can.
    relay = new OutboxRelay({
      db: database.db,
      pool: database.pool,
      bus,
      logger: logs.logger,
      pollIntervalMs: 60_000,
      maxBackoffMs: 60_000,
    });
    await relay.start();
    const check = outboxHealthCheck({ db: database.db, bus });
    expect(await check()).toEqual({ status: 'up', oldestUnpublishedAgeSeconds: null });

    await proxy.cut();
    // Down as soon as the connection is lost, before any event waits.
    await eventually(async () =>
      expect(await check()).toEqual({ status: 'down', oldestUnpublishedAgeSeconds: null }),
    );
    const written = await withTenant(database.db, tenant.id, (trx) =>
      writeEvents(
        trx,
        Array.from({ length: 50 }, (_, n) => ({
          type: 'lead.imported',
          tenant_id: tenant.id,
          record: { module: 'leads', id: `l${n}` },
          data: { n },
        })),
      ),
    );
    // The NOTIFY at commit made the relay try; the publish failed and it backed off.
    await eventually(async () => expect((await unpublished(tenant.id))[0].last_error).toBeTruthy());
    expect(await unpublished(tenant.id)).toHaveLength(50);
    await eventually(async () => {
      const health = await check();
      expect(health.status).toBe('down');
      expect(health.oldestUnpublishedAgeSeconds).toBeGreaterThanOrEqual(2);
    });

    await proxy.restore();
    const restoredAt = Date.now();
    await eventually(async () => expect(await unpublished(tenant.id)).toEqual([]), 10_000);
    const publishedAfterMs = Date.now() - restoredAt;
    // Far under the minute the poll and the backoff would have taken.
    expect(publishedAfterMs).toBeLessThan(10_000);
    expect(await check()).toEqual({ status: 'up', oldestUnpublishedAgeSeconds: null });
    await eventually(() => expect(received).toEqual(new Set(written.map((e) => e.id))));
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({ msg: 'event bus reconnected: outbox relay publishing now' }),
    );
  }, 40_000);
});
