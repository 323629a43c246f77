import { withSystemScope, type Db } from '@crm/shared/db';
import { createTenant, isolatedTestDb, sweepPlans } from '@crm/test-kit';
import { sql } from 'kysely';
import { configSchema } from '../src/config';
import { recordDelivery } from '../src/ledger/record-delivery';
import { service } from '../src/main';
import { webhookIngestRetention } from '../src/retention/retention-sweeps';

/*
 * webhook-ingest's retention: a ledger row's payload (raw body, headers) is dropped after 30
 * days but the row, with its (provider, delivery_id) key, stays to 90, so a provider re-sending
 * the delivery between the two is still refused as a duplicate; after 90 days the row goes.
 * Provider events (network events, email opens and clicks) go after a year. Sweeps run in the
 * system scope across tenants by age alone and leave every other row as it was.
 */
let database: Db;
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

describe('the inbound ledger', () => {
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
