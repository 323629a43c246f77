import {
  findRowLevelSecurityGaps,
  PAYLOAD_WEEKS_AHEAD,
  payloadWeek,
  withSystemScope,
  type Db,
} from '@crm/shared/db';
import { retentionHealthCheck, retentionWorker } from '@crm/shared/retention';
import {
  captureLogger,
  createTenant,
  eventually,
  isolatedTestDb,
  sweepPlans,
  untilWaitingOnLock,
} from '@crm/test-kit';
import { sql } from 'kysely';
import { Client } from 'pg';
import { configSchema } from '../src/config';
import { recordDelivery } from '../src/ledger/record-delivery';
import { service } from '../src/main';
import {
  dropOldestPayloadPartitionBefore,
  ensurePayloadPartitions,
  listPayloadPartitions,
} from '../src/retention/payload-partitions.repository';
import { webhookIngestRetention } from '../src/retention/retention-sweeps';

/*
 * webhook-ingest's retention: a ledger row's payload (raw body, headers) is dropped after 30
 * days but the row, with its (provider, delivery_id) key, stays to 90, so a provider re-sending
 * the delivery between the two is still refused as a duplicate; after 90 days the row goes.
 * Payloads live in inbound_event_payloads, partitioned by week: each round the worker makes
 * the weeks ahead and drops every week whose last day is past the policy, whole; payloads
 * recorded in their ledger rows before that table are still stripped row by row. Provider
 * events (network events, email opens and clicks) go after a year. Sweeps run in the system
 * scope across tenants by age alone and leave every other row as it was.
 */
let database: Db & { url: string };
const retention = webhookIngestRetention(configSchema.parse({}));
const sweepOf = (table: string) => retention.sweeps.find((s) => s.table === table)!;
const DAY = 24 * 60 * 60_000;
const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms);

beforeAll(async () => {
  database = await isolatedTestDb();
});
afterAll(() => database.close());

/** Runs every sweep of webhook-ingest once, now, as its worker does. */
async function sweepAll(): Promise<void> {
  for (const sweep of retention.sweeps) {
    await sweep.sweepBatch(database.db, new Date(Date.now() - sweep.keepMs), 1000);
  }
}

async function ledgerRow(deliveryId: string, receivedAgoMs: number, tenantId: string | null) {
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('inbound_events')
      .values({
        tenant_id: tenantId,
        provider: 'network',
        delivery_id: deliveryId,
        event_type: 'network.message',
        content_type: 'application/json',
        raw_body: JSON.stringify({ id: deliveryId }),
        headers: JSON.stringify({ 'content-type': 'application/json' }),
        verification: 'verified',
        outcome: 'processed',
        detail: 'stored',
        received_at: ago(receivedAgoMs),
        processed_at: ago(receivedAgoMs),
      })
      .execute(),
  );
}

const ledger = () =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('inbound_events').selectAll().orderBy('delivery_id').execute(),
  );

/** The provider re-sending `deliveryId`: whether the ledger let its handler run. */
async function resend(deliveryId: string): Promise<'duplicate' | 'handled'> {
  let handled = false;
  const recorded = await recordDelivery(
    database.db,
    {
      provider: 'network',
      deliveryId,
      rawBody: Buffer.from(JSON.stringify({ id: deliveryId })),
      verification: 'verified',
    },
    async () => {
      handled = true;
      return { outcome: 'ignored', tenantId: null };
    },
  );
  expect(recorded.duplicate).toBe(!handled);
  return handled ? 'handled' : 'duplicate';
}

describe('the inbound ledger, payloads recorded in their rows (before inbound_event_payloads)', () => {
  let tenants: { id: string }[];
  beforeAll(async () => {
    tenants = [await createTenant(database), await createTenant(database)];
    await ledgerRow('payload-just-inside', 30 * DAY - MINUTE, tenants[0].id);
    await ledgerRow('payload-just-outside', 30 * DAY + MINUTE, tenants[1].id);
    await ledgerRow('held-payload-outside', 31 * DAY, null);
    await ledgerRow('row-just-inside', 90 * DAY - MINUTE, tenants[0].id);
    await ledgerRow('row-just-outside', 90 * DAY + MINUTE, tenants[1].id);
  });

  it('drops payloads past 30 days, keeps rows to 90, and changes nothing else', async () => {
    expect(sweepOf('inbound_events.raw_body').keepMs).toBe(30 * DAY);
    expect(sweepOf('inbound_events').keepMs).toBe(90 * DAY);
    const before = await ledger();
    await sweepAll();
    const after = await ledger();
    expect(
      after.map((row) => [row.delivery_id, row.raw_body !== null, row.headers !== null]),
    ).toEqual([
      ['held-payload-outside', false, false],
      ['payload-just-inside', true, true],
      ['payload-just-outside', false, false],
      ['row-just-inside', false, false],
    ]);
    // Every other column, the dedup key and the tenant among them, is as it was.
    const rest = ({ raw_body: _b, headers: _h, ...row }: (typeof after)[number]) => row;
    expect(after.map(rest)).toEqual(
      before.filter((row) => row.delivery_id !== 'row-just-outside').map(rest),
    );
  });

  it('a delivery whose payload was dropped is still refused as a duplicate when re-sent', async () => {
    expect(await resend('payload-just-outside')).toBe('duplicate');
    expect(await resend('row-just-inside')).toBe('duplicate');
    const row = (await ledger()).find((r) => r.delivery_id === 'payload-just-outside')!;
    expect(row).toMatchObject({ raw_body: null, attempts: 1, outcome: 'processed' });
  });

  it('after 90 days the row is gone, and only then is a re-send handled as new', async () => {
    expect(await resend('row-just-outside')).toBe('handled');
  });

  it('a batch and the health question read the head of their index, without a sort', async () => {
    // The steady state: two months of rows already stripped for each one still carrying its
    // payload. The payload sweep must not walk them (its partial index holds none of them).
    await sql`INSERT INTO inbound_events (provider, delivery_id, raw_body, verification, outcome,
                received_at)
      SELECT 'network', 'stripped-' || n, NULL, 'verified', 'processed',
             now() - interval '31 days' - n * interval '1 minute'
        FROM generate_series(1, 5000) AS n`.execute(database.db);
    await sql`INSERT INTO inbound_events (provider, delivery_id, raw_body, verification, outcome,
                received_at)
      SELECT 'network', 'carrying-' || n, '{}', 'verified', 'processed',
             now() - n * interval '1 minute'
        FROM generate_series(1, 2500) AS n`.execute(database.db);
    await sql`ANALYZE inbound_events`.execute(database.db);
    for (const [table, index] of [
      ['inbound_events.raw_body', 'inbound_events_payload_by_received'],
      ['inbound_events', 'inbound_events_by_received'],
    ]) {
      const sweep = sweepOf(table);
      const plans = await sweepPlans(database, async (db) => {
        await sweep.sweepBatch(db, new Date(0), 1000);
        await sweep.oldestBefore(db, new Date(0));
      });
      expect(plans).toHaveLength(2);
      for (const plan of plans) {
        expect(plan.indexes).toContain(index);
        expect(plan.sorts).toBe(false);
        expect(plan.scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
      }
    }
  });
});

describe('payloads in inbound_event_payloads, a week at a time', () => {
  // The worker's clock: Thursday noon of this week, so which weeks are past the 30 days does
  // not depend on the day the test runs (with a 30-day policy, five weeks back and older).
  const clock = new Date(payloadWeek(new Date()).from.getTime() + 3.5 * DAY);
  const week = (k: number) => payloadWeek(clock, k);
  const cutoff = new Date(clock.getTime() - 30 * DAY);
  let tenantId: string;

  /** A processed ledger row received in week `k` (days after its start), with its payload. */
  async function weekRow(deliveryId: string, k: number, days = 2) {
    const receivedAt = new Date(week(k).from.getTime() + days * DAY);
    await withSystemScope(database.db, async (trx) => {
      const { id } = await trx
        .insertInto('inbound_events')
        .values({
          tenant_id: tenantId,
          provider: 'network',
          delivery_id: deliveryId,
          verification: 'verified',
          outcome: 'processed',
          received_at: receivedAt,
          processed_at: receivedAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('inbound_event_payloads')
        .values({
          ledger_id: id,
          received_at: receivedAt,
          raw_body: JSON.stringify({ id: deliveryId }),
          headers: JSON.stringify({ 'content-type': 'application/json' }),
        })
        .execute();
    });
  }

  /** Each ledger row of `ids`: whether it is there, and whether its payload is. */
  const kept = async (ids: string[]) =>
    (
      await sql<{ delivery_id: string; payload: boolean }>`
        SELECT e.delivery_id, p.ledger_id IS NOT NULL AS payload FROM inbound_events e
          LEFT JOIN inbound_event_payloads p ON p.ledger_id = e.id AND p.received_at = e.received_at
         WHERE e.delivery_id IN (${sql.join(ids)}) ORDER BY e.delivery_id`.execute(database.db)
    ).rows;

  const attached = async () =>
    (await listPayloadPartitions(database.db)).filter((p) => p.attached).map((p) => p.name);

  const worker = (logger = captureLogger().logger) =>
    retentionWorker({ db: database.db, logger }, retention.sweeps, {
      everyMs: 60 * 60_000,
      batchSize: 1000,
      pauseMs: 0,
      now: () => clock.getTime(),
    });

  /** A connection holding the payload table (as a delivery's transaction does), until released. */
  async function holdPayloads() {
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('BEGIN; SELECT FROM inbound_event_payloads LIMIT 1');
    return async () => {
      await holder.query('COMMIT');
      await holder.end();
    };
  }

  beforeAll(async () => {
    tenantId = (await createTenant(database)).id;
    // Old weeks, made the way the worker makes them, with its clock moved back.
    expect(await ensurePayloadPartitions(database.db, week(-6).from)).toEqual(
      [-6, -5, -4, -3, -2, -1].map((k) => week(k).name),
    );
    await weekRow('week-5', -5);
    await weekRow('week-4', -4);
    await weekRow('week-0', 0);
  });

  it('the worker makes the weeks ahead, and drops each week past the policy whole; the ledger rows and younger weeks stay', async () => {
    // The furthest week ahead is gone: the worker makes it again.
    const ahead = week(PAYLOAD_WEEKS_AHEAD).name;
    await sql`ALTER TABLE inbound_event_payloads
      DETACH PARTITION ${sql.id('inbound_event_payload_partitions', ahead)}`.execute(database.db);
    await sql`DROP TABLE ${sql.id('inbound_event_payload_partitions', ahead)}`.execute(database.db);
    const { logger, lines } = captureLogger();
    const running = worker(logger);
    await running.start();
    // start() waited for the weeks ahead.
    expect(await attached()).toContain(ahead);
    await eventually(async () =>
      expect(await attached()).toEqual(
        Array.from({ length: PAYLOAD_WEEKS_AHEAD + 5 }, (_, i) => week(i - 4).name),
      ),
    );
    await running.stop();
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'retention prepared ahead', made: [ahead] }),
        expect.objectContaining({
          msg: 'retention sweep dropped partitions past their policy',
          table: 'inbound_event_payloads',
          removed: 2,
        }),
      ]),
    );
    // Five weeks back went whole (its payload with it); its ledger row and key stay.
    expect(await kept(['week-0', 'week-4', 'week-5'])).toEqual([
      { delivery_id: 'week-0', payload: true },
      { delivery_id: 'week-4', payload: true },
      { delivery_id: 'week-5', payload: false },
    ]);
    expect(await resend('week-5')).toBe('duplicate');
    // A partition has no tenant_id: nothing for the row-level security check to refuse.
    expect(await findRowLevelSecurityGaps(database.db)).toEqual([]);
  });

  it("a delivery in a week without its partition fails and writes nothing (the provider retries); health says what is missing; the next round's partition takes it", async () => {
    const current = payloadWeek(new Date());
    const table = sql.id('inbound_event_payload_partitions', current.name);
    await sql`ALTER TABLE inbound_event_payloads DETACH PARTITION ${table}`.execute(database.db);
    const deliveryId = `no-partition-${Date.now()}`;
    await expect(resend(deliveryId)).rejects.toThrow(
      'no partition of relation "inbound_event_payloads" found for row',
    );
    expect(await kept([deliveryId])).toEqual([]);
    const health = await retention.healthCheck(database.db)();
    expect(health.behind).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          table: 'inbound_event_payloads',
          policy: 'RETENTION_LEDGER_PAYLOADS_DAYS',
          missing: expect.stringContaining(`this week (${current.name}`),
        }),
      ]),
    );
    // The worker's next round: the detached table is attached again, its payloads with it.
    expect(await ensurePayloadPartitions(database.db, new Date())).toEqual([current.name]);
    expect(await resend(deliveryId)).toBe('handled');
    expect(await kept([deliveryId])).toEqual([{ delivery_id: deliveryId, payload: true }]);
  });

  it('a detach cut short (its wait timed out) is finished by the next drop', async () => {
    await ensurePayloadPartitions(database.db, week(-7).from, 1);
    const release = await holdPayloads();
    try {
      await expect(
        dropOldestPayloadPartitionBefore(database.db, cutoff, { lockTimeoutMs: 200 }),
      ).rejects.toThrow('lock timeout');
    } finally {
      await release();
    }
    expect((await listPayloadPartitions(database.db)).filter((p) => p.detachPending)).toEqual([
      expect.objectContaining({ name: week(-7).name }),
    ]);
    expect(await dropOldestPayloadPartitionBefore(database.db, cutoff)).toBe(1);
    expect(await dropOldestPayloadPartitionBefore(database.db, cutoff)).toBe(1);
    expect(await dropOldestPayloadPartitionBefore(database.db, cutoff)).toBe(0);
    const names = (await listPayloadPartitions(database.db)).map((p) => p.name);
    expect(names).not.toContain(week(-7).name);
    expect(names).not.toContain(week(-6).name);
    // The connection went back to the pool as it came: its own role, no lock timeout.
    const { rows } = await sql<{ role: string; timeout: string }>`
      SELECT current_user AS role, current_setting('lock_timeout') AS timeout`.execute(database.db);
    expect(rows[0]).toEqual({ role: 'postgres', timeout: '0' });
  });

  it('stopped while a drop waits, the worker lets that drop finish and starts no other', async () => {
    await ensurePayloadPartitions(database.db, week(-7).from, 1);
    const release = await holdPayloads();
    const running = worker();
    let stopped: Promise<void> | undefined;
    try {
      await running.start();
      await untilWaitingOnLock(database.db, '%DETACH PARTITION%CONCURRENTLY%');
      stopped = running.stop();
    } finally {
      await release();
    }
    await stopped;
    const left = await listPayloadPartitions(database.db);
    expect(left.map((p) => p.name)).not.toContain(week(-7).name);
    expect(left.filter((p) => p.name === week(-6).name)).toEqual([
      expect.objectContaining({ attached: true, detachPending: false }),
    ]);
    // The next round drops the other.
    const again = worker();
    await again.start();
    await eventually(async () => expect(await attached()).not.toContain(week(-6).name));
    await again.stop();
  });

  it('health: behind when the oldest week is past the policy plus the grace, or the next week is missing', async () => {
    await ensurePayloadPartitions(database.db, week(-6).from, 0);
    const check = (graceMs: number) =>
      retentionHealthCheck(database.db, retention.sweeps, {
        graceMs,
        now: () => clock.getTime(),
      })();
    const lag = (await check(60 * MINUTE)).behind.find((l) => l.table === 'inbound_event_payloads');
    expect(lag).toEqual({
      table: 'inbound_event_payloads',
      policy: 'RETENTION_LEDGER_PAYLOADS_DAYS',
      oldestAgeSeconds: Math.floor((clock.getTime() - week(-6).to.getTime()) / 1000),
      keepSeconds: 30 * 24 * 60 * 60,
    });
    await dropOldestPayloadPartitionBefore(database.db, cutoff);
    const next = sql.id('inbound_event_payload_partitions', week(1).name);
    await sql`ALTER TABLE inbound_event_payloads DETACH PARTITION ${next}`.execute(database.db);
    expect((await check(60 * MINUTE)).behind).toEqual(
      expect.arrayContaining([
        {
          table: 'inbound_event_payloads',
          policy: 'RETENTION_LEDGER_PAYLOADS_DAYS',
          oldestAgeSeconds: null,
          keepSeconds: 30 * 24 * 60 * 60,
          missing: expect.stringContaining(`next week (${week(1).name}`),
        },
      ]),
    );
    // The next round makes it again.
    expect(await ensurePayloadPartitions(database.db, clock)).toEqual([week(1).name]);
    expect(
      (await check(60 * MINUTE)).behind.filter((l) => l.table === 'inbound_event_payloads'),
    ).toEqual([]);
  });
});

describe('provider events', () => {
  const TABLES = ['network_events', 'email_opens', 'email_clicks'] as const;

  async function seed(tenantId: string, label: string) {
    return withSystemScope(database.db, async (trx) => {
      const account = await trx
        .insertInto('network_accounts')
        .values({ tenant_id: tenantId, external_account_id: `acct-${label}-${tenantId}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      const message = await trx
        .insertInto('email_messages')
        .values({ tenant_id: tenantId, provider_message_id: `msg-${label}-${tenantId}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [suffix, agoMs] of [
        ['outside', 365 * DAY + MINUTE],
        ['inside', 365 * DAY - MINUTE],
      ] as const) {
        const created_at = ago(agoMs);
        const metadata = JSON.stringify({ label: `${label}-${suffix}` });
        await trx
          .insertInto('network_events')
          .values({
            tenant_id: tenantId,
            account_id: account.id,
            kind: 'network_message_sent',
            event_type: 'message',
            payload: metadata,
            created_at,
          })
          .execute();
        await trx
          .insertInto('email_opens')
          .values({ tenant_id: tenantId, message_id: message.id, metadata, created_at })
          .execute();
        await trx
          .insertInto('email_clicks')
          .values({
            tenant_id: tenantId,
            message_id: message.id,
            metadata,
            target_url: 'https://example.com',
            created_at,
          })
          .execute();
      }
    });
  }

  const rowsOf = (table: (typeof TABLES)[number]) =>
    withSystemScope(database.db, (trx) =>
      trx.selectFrom(table).selectAll().orderBy('id').execute(),
    );

  it('go after a year, in every tenant, and the rows inside the year stay as they were', async () => {
    expect(sweepOf('network_events').keepMs).toBe(365 * DAY);
    const [a, b] = [await createTenant(database), await createTenant(database)];
    await seed(a.id, 'a');
    await seed(b.id, 'b');
    const before = await Promise.all(TABLES.map(rowsOf));
    await sweepAll();
    const after = await Promise.all(TABLES.map(rowsOf));
    TABLES.forEach((_table, i) => {
      const inside = before[i].filter((row) => row.created_at > ago(365 * DAY));
      expect(inside).toHaveLength(2);
      expect(after[i]).toEqual(inside);
    });
  });

  it('each sweep reads its table by age, without a sort', async () => {
    for (const table of TABLES) {
      const sweep = sweepOf(table);
      const plans = await sweepPlans(database, async (db) => {
        await sweep.sweepBatch(db, new Date(0), 1000);
        await sweep.oldestBefore(db, new Date(0));
      });
      expect(plans).toHaveLength(2);
      for (const plan of plans) {
        expect(plan.indexes).toContain(`${table}_by_age`);
        expect(plan.sorts).toBe(false);
        expect(plan.scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
      }
    }
  });
});

it('refuses a ledger row period shorter than its payload period', () => {
  expect(() =>
    configSchema.parse({ RETENTION_LEDGER_PAYLOADS_DAYS: '30', RETENTION_LEDGER_DAYS: '29' }),
  ).toThrow(/at least RETENTION_LEDGER_PAYLOADS_DAYS/);
  expect(
    configSchema.parse({ RETENTION_LEDGER_PAYLOADS_DAYS: '7', RETENTION_LEDGER_DAYS: '14' }),
  ).toMatchObject({ RETENTION_LEDGER_PAYLOADS_DAYS: 7, RETENTION_LEDGER_DAYS: 14 });
});

it('webhook-ingest runs its sweeps as a worker', () => {
  const workers = service.workers?.({ db: database.db } as never, configSchema.parse({}));
  expect(workers?.map((w) => w.name)).toEqual(['retention']);
});
