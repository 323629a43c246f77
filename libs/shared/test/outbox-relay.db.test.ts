import { withSystemScope, withTenant, type Db } from '@crm/shared/db';
import {
  InProcessBus,
  OutboxRelay,
  OUTBOX_BATCH_MAX,
  OUTBOX_BATCH_MIN,
  writeEvent,
  writeEvents,
  type EventBus,
  type EventEnvelope,
  type PublishResult,
} from '@crm/shared/events';
import { captureLogger, createTenant, eventually, isolatedTestDb } from '@crm/shared/testing';
import { sql } from 'kysely';

const { logger } = captureLogger();
let database: Db;
let db: Db['db'];
let pool: Db['pool'];

beforeAll(async () => {
  database = await isolatedTestDb();
  ({ db, pool } = database);
});
afterAll(() => database.close());

/** Records every publish that reaches the bus, and can be made to fail. */
class RecordingBus implements EventBus {
  readonly kind = 'in-process' as const;
  readonly published: EventEnvelope[] = [];
  failing = false;
  constructor(private readonly inner: EventBus) {}
  async publish(event: EventEnvelope): Promise<PublishResult> {
    if (this.failing) throw new Error('bus unavailable');
    this.published.push(event);
    return this.inner.publish(event);
  }
  subscribe: EventBus['subscribe'] = (spec) => this.inner.subscribe(spec);
  isConnected = () => !this.failing;
  readonly reconnectListeners = new Set<() => void>();
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => void this.reconnectListeners.delete(listener);
  }
  /** The transport is back: stops failing and tells the listeners, as NatsBus does. */
  reconnect(): void {
    this.failing = false;
    for (const listener of this.reconnectListeners) listener();
  }
  close = () => this.inner.close();
}

async function outboxRows(tenantId: string) {
  return withSystemScope(db, (trx) =>
    trx
      .selectFrom('event_outbox')
      .select(['id', 'published_at', 'attempts', 'last_error'])
      .where('tenant_id', '=', tenantId)
      .orderBy('seq')
      .execute(),
  );
}

function leadEvent(tenantId: string, n: number) {
  return {
    type: 'lead.imported',
    tenant_id: tenantId,
    record: { module: 'leads', id: `lead-${n}` },
    data: { n },
  };
}

describe('event outbox and relay', () => {
  let tenant: { id: string };
  let relays: OutboxRelay[] = [];

  beforeEach(async () => {
    tenant = await createTenant(database);
  });
  afterEach(async () => {
    await Promise.all(relays.map((r) => r.stop()));
    relays = [];
  });

  function startRelay(bus: EventBus, pollIntervalMs = 50): OutboxRelay {
    const relay = new OutboxRelay({ db, pool, bus, logger, pollIntervalMs });
    relays.push(relay);
    void relay.start();
    return relay;
  }

  it('writes the event in the caller transaction: rolled back, nothing is written', async () => {
    await expect(
      withTenant(db, tenant.id, async (trx) => {
        await writeEvent(trx, leadEvent(tenant.id, 1));
        throw new Error('the data write failed');
      }),
    ).rejects.toThrow('the data write failed');
    expect(await outboxRows(tenant.id)).toEqual([]);
  });

  it('rejects an event for another tenant inside withTenant (row-level security)', async () => {
    const other = await createTenant(database);
    await expect(
      withTenant(db, tenant.id, (trx) => writeEvent(trx, leadEvent(other.id, 1))),
    ).rejects.toMatchObject({ code: '42501' });
    expect(await outboxRows(other.id)).toEqual([]);
  });

  it('rejects an envelope that does not fit the schema before writing', async () => {
    await expect(
      withTenant(db, tenant.id, (trx) =>
        writeEvent(trx, { ...leadEvent(tenant.id, 1), type: 'Not A Type!' }),
      ),
    ).rejects.toThrow();
    expect(await outboxRows(tenant.id)).toEqual([]);
  });

  it('publishes committed events in order, marks them published, and a subscriber receives them', async () => {
    const bus = new InProcessBus({ logger });
    const received: EventEnvelope[] = [];
    await bus.subscribe({
      durable: 'test',
      handler: async (e) => void (e.tenant_id === tenant.id && received.push(e)),
    });
    startRelay(bus);
    const written = await withTenant(db, tenant.id, async (trx) => {
      const events = [];
      for (let n = 1; n <= 5; n++) events.push(await writeEvent(trx, leadEvent(tenant.id, n)));
      return events;
    });
    await eventually(() => expect(received.map((e) => e.data.n)).toEqual([1, 2, 3, 4, 5]));
    expect(received).toEqual(written);
    // The in-process bus hands each event over as it is published, before the relay marks it.
    await eventually(async () => {
      const rows = await outboxRows(tenant.id);
      expect(rows.every((r) => r.published_at !== null)).toBe(true);
    });
    await bus.close();
  });

  it('stores a bulk write of one tenant in batch rows and publishes each of their events in order', async () => {
    const count = OUTBOX_BATCH_MAX * 2 + 5;
    const written = await withTenant(db, tenant.id, (trx) =>
      writeEvents(
        trx,
        Array.from({ length: count }, (_, n) => leadEvent(tenant.id, n)),
      ),
    );
    const stored = await withSystemScope(db, (trx) =>
      trx
        .selectFrom('event_outbox')
        .select(['id', 'type', 'event_count', 'envelope'])
        .where('tenant_id', '=', tenant.id)
        .orderBy('seq')
        .execute(),
    );
    expect(stored.map((row) => row.event_count)).toEqual([OUTBOX_BATCH_MAX, OUTBOX_BATCH_MAX, 5]);
    expect(stored.map((row) => row.id)).toEqual(
      [0, OUTBOX_BATCH_MAX, 2 * OUTBOX_BATCH_MAX].map((n) => written[n].id),
    );
    expect(stored.every((row) => row.type === 'lead.imported')).toBe(true);
    expect(stored.flatMap((row) => row.envelope as EventEnvelope[])).toEqual(written);

    const bus = new RecordingBus(new InProcessBus({ logger }));
    // A round of at most 1,500 events takes one batch row of 1,000, not two.
    const relay = new OutboxRelay({ db, pool, bus, logger, batchSize: 1500 });
    relays.push(relay);
    await relay.start();
    await eventually(async () =>
      expect((await outboxRows(tenant.id)).every((row) => row.published_at !== null)).toBe(true),
    );
    const mine = bus.published.filter((event) => event.tenant_id === tenant.id);
    expect(mine).toEqual(written);
    await bus.close();
  });

  it('writes fewer events, or events of several tenants, one row each', async () => {
    const other = await createTenant(database);
    const few = Array.from({ length: OUTBOX_BATCH_MIN - 1 }, (_, n) => leadEvent(tenant.id, n));
    await withTenant(db, tenant.id, (trx) => writeEvents(trx, few));
    const mixed = Array.from({ length: OUTBOX_BATCH_MIN }, (_, n) =>
      leadEvent(n % 2 ? tenant.id : other.id, n),
    );
    await withSystemScope(db, (trx) => writeEvents(trx, mixed));
    const counts = await withSystemScope(db, (trx) =>
      trx
        .selectFrom('event_outbox')
        .select(['event_count'])
        .where('tenant_id', 'in', [tenant.id, other.id])
        .execute(),
    );
    expect(counts).toHaveLength(few.length + mixed.length);
    expect(counts.every((row) => row.event_count === 1)).toBe(true);
    // Nothing of this test is left for the next tests' relays to publish.
    await withSystemScope(db, (trx) =>
      trx
        .updateTable('event_outbox')
        .set({ published_at: new Date() })
        .where('tenant_id', 'in', [tenant.id, other.id])
        .execute(),
    );
  });

  it('keeps events while the bus fails and publishes every one once it is back', async () => {
    const bus = new RecordingBus(new InProcessBus({ logger }));
    bus.failing = true;
    const relay = startRelay(bus);
    await withTenant(db, tenant.id, async (trx) => {
      for (let n = 1; n <= 3; n++) await writeEvent(trx, leadEvent(tenant.id, n));
    });
    await eventually(async () => {
      const rows = await outboxRows(tenant.id);
      expect(rows[0].last_error).toBe('bus unavailable');
      expect(rows.every((r) => r.published_at === null)).toBe(true);
    });
    bus.failing = false;
    await relay.drain();
    await eventually(async () =>
      expect((await outboxRows(tenant.id)).every((r) => r.published_at !== null)).toBe(true),
    );
    const mine = bus.published.filter((e) => e.tenant_id === tenant.id);
    expect(mine.map((e) => e.data.n)).toEqual([1, 2, 3]);
  });

  it('publishes a batch with many acknowledgements in flight, in seq order', async () => {
    const inner = new InProcessBus({ logger });
    let inFlight = 0;
    let mostInFlight = 0;
    const started: unknown[] = [];
    const bus = new RecordingBus(inner);
    bus.publish = async (event) => {
      started.push(event.data.n);
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return inner.publish(event);
    };
    await withTenant(db, tenant.id, async (trx) => {
      for (let n = 1; n <= 50; n++) await writeEvent(trx, leadEvent(tenant.id, n));
    });
    const relay = new OutboxRelay({ db, pool, bus, logger, pollIntervalMs: 60_000 });
    relays.push(relay);
    await relay.start();
    await relay.drain();
    expect((await outboxRows(tenant.id)).every((r) => r.published_at !== null)).toBe(true);
    expect(started.filter((n) => typeof n === 'number')).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(mostInFlight).toBeGreaterThanOrEqual(50);
    await inner.close();
  });

  it('marks what was acknowledged and keeps only the failed row for the next round', async () => {
    const inner = new InProcessBus({ logger });
    const bus = new RecordingBus(inner);
    let refuse = 3;
    bus.publish = async (event) => {
      if (event.tenant_id === tenant.id && event.data.n === refuse) throw new Error('nack');
      bus.published.push(event);
      return inner.publish(event);
    };
    await withTenant(db, tenant.id, async (trx) => {
      for (let n = 1; n <= 5; n++) await writeEvent(trx, leadEvent(tenant.id, n));
    });
    const relay = new OutboxRelay({ db, pool, bus, logger, pollIntervalMs: 60_000 });
    relays.push(relay);
    await relay.start();
    await relay.drain();
    const rows = await outboxRows(tenant.id);
    expect(rows.map((r) => r.published_at !== null)).toEqual([true, true, false, true, true]);
    expect(rows[2].last_error).toBe('nack');
    refuse = 0;
    await relay.drain();
    expect((await outboxRows(tenant.id)).every((r) => r.published_at !== null)).toBe(true);
    const mine = bus.published.filter((e) => e.tenant_id === tenant.id).map((e) => e.data.n);
    expect(mine).toEqual([1, 2, 4, 5, 3]);
    await inner.close();
  });

  it('publishes each row once when several relays run at once', async () => {
    const bus = new RecordingBus(new InProcessBus({ logger }));
    for (let i = 0; i < 4; i++) startRelay(bus, 5);
    const ids = await withTenant(db, tenant.id, async (trx) => {
      const out: string[] = [];
      for (let n = 1; n <= 200; n++) out.push((await writeEvent(trx, leadEvent(tenant.id, n))).id);
      return out;
    });
    await eventually(async () =>
      expect((await outboxRows(tenant.id)).every((r) => r.published_at !== null)).toBe(true),
    );
    const mine = bus.published.filter((e) => e.tenant_id === tenant.id).map((e) => e.id);
    expect(mine).toEqual(ids);
    const rows = await outboxRows(tenant.id);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });

  it('wakes on NOTIFY at commit without waiting for the poll', async () => {
    const bus = new RecordingBus(new InProcessBus({ logger }));
    // A poll far longer than the test's patience: only the notification can deliver in time.
    const relay = new OutboxRelay({ db, pool, bus, logger, pollIntervalMs: 60_000 });
    relays.push(relay);
    await relay.start();
    const { id } = await withTenant(db, tenant.id, (trx) =>
      writeEvent(trx, leadEvent(tenant.id, 1)),
    );
    await eventually(() => expect(bus.published.map((e) => e.id)).toContain(id), 5000);
  });

  it('publishes at once when the bus reconnects, without waiting out its backoff', async () => {
    const bus = new RecordingBus(new InProcessBus({ logger }));
    bus.failing = true;
    // A poll and a backoff far longer than the test's patience: after the failed round only
    // the reconnect can wake the relay in time (no new write sends a NOTIFY).
    const relay = new OutboxRelay({
      db,
      pool,
      bus,
      logger,
      pollIntervalMs: 60_000,
      maxBackoffMs: 60_000,
    });
    relays.push(relay);
    await relay.start();
    await withTenant(db, tenant.id, async (trx) => {
      for (let n = 1; n <= 3; n++) await writeEvent(trx, leadEvent(tenant.id, n));
    });
    await eventually(async () =>
      expect((await outboxRows(tenant.id))[0].last_error).toBe('bus unavailable'),
    );
    bus.reconnect();
    await eventually(async () => {
      const rows = await outboxRows(tenant.id);
      expect(rows.every((r) => r.published_at !== null)).toBe(true);
    }, 5000);
    const mine = bus.published.filter((e) => e.tenant_id === tenant.id);
    expect(mine.map((e) => e.data.n)).toEqual([1, 2, 3]);
  });

  it('stops listening for reconnects when stopped', async () => {
    const bus = new RecordingBus(new InProcessBus({ logger }));
    const relay = new OutboxRelay({ db, pool, bus, logger, pollIntervalMs: 60_000 });
    await relay.start();
    expect(bus.reconnectListeners.size).toBe(1);
    await relay.stop();
    expect(bus.reconnectListeners.size).toBe(0);
  });

  it('a round cut off by shutdown (the database going away too) is not logged as an error', async () => {
    const logs = captureLogger();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const inner = new InProcessBus({ logger });
    // Holds the relay's first publish, so its round (and transaction) is in flight.
    const bus = new RecordingBus(inner);
    let publishing!: () => void;
    const started = new Promise<void>((resolve) => (publishing = resolve));
    bus.publish = async (event) => {
      publishing();
      await held;
      return inner.publish(event);
    };
    const relay = new OutboxRelay({ db, pool, bus, logger: logs.logger, pollIntervalMs: 60_000 });
    await relay.start();
    await withTenant(db, tenant.id, (trx) => writeEvent(trx, leadEvent(tenant.id, 1)));
    await started;
    const stopping = relay.stop();
    // Ctrl-C reaches an embedded Postgres at the same moment: the relay's connection dies.
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE datname = current_database() AND pid <> pg_backend_pid()
                 AND state LIKE 'idle in transaction%'`.execute(db);
    release();
    await stopping;
    const lines = logs.lines();
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'debug', msg: 'outbox relay round ended by shutdown' }),
    );
  });

  it('stamps every event with an id, a time and its tenant', async () => {
    const event = await withTenant(db, tenant.id, (trx) =>
      writeEvent(trx, leadEvent(tenant.id, 7)),
    );
    expect(event).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'lead.imported',
      tenant_id: tenant.id,
      record: { module: 'leads', id: 'lead-7' },
      data: { n: 7 },
      trace: {},
    });
    expect(Number.isNaN(Date.parse(event.occurred_at))).toBe(false);
  });
});
