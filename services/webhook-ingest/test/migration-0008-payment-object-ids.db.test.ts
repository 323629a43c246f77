import { randomUUID } from 'node:crypto';
import {
  createDb,
  dropDatabase,
  ensureDatabase,
  migrateToLatest,
  withDatabase,
  type Db,
} from '@crm/shared/db';
import { migrations } from '@crm/shared/db/migrations';
import { Migrator, sql } from 'kysely';

/**
 * Migration 0008 on a database that already holds payments, duplicates included (what the Razorpay
 * receiver could store while its ledger key came from an unsigned header): it backfills
 * provider_object_id from the stored payloads with the receivers' rule, gives it only to the oldest
 * row of each payment, keeps every row, and so creates its unique index without failing. Afterwards
 * another row for a payment already stored is refused by that index.
 */
const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
const name = `crm_mig0008_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
let database: Db;

beforeAll(async () => {
  if (!adminUrl) throw new Error('run tests through `npm test` (jest global setup)');
  await ensureDatabase(adminUrl, name);
  database = createDb({ connectionString: withDatabase(adminUrl, name), maxConnections: 2 });
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
  });
  const { error } = await migrator.migrateTo('0007_tenant_invitations');
  if (error) throw error;
});

afterAll(async () => {
  await database?.close();
  if (adminUrl) await dropDatabase(adminUrl, name);
});

it('backfills object ids, keeps duplicates without one, and then refuses a second row per payment', async () => {
  const db = database.db;
  const { rows: tenants } = await sql<{ id: string }>`
    INSERT INTO tenants (slug, name) VALUES (${`t-${randomUUID().slice(0, 12)}`}, 'Migration') RETURNING id`.execute(
    db,
  );
  const tenantId = tenants[0].id;
  const connection = async (provider: string) =>
    (
      await sql<{ id: string }>`INSERT INTO payment_connections
        (tenant_id, provider, webhook_secret_ciphertext)
        VALUES (${tenantId}, ${provider}, 'sealed') RETURNING id`.execute(db)
    ).rows[0].id;
  const [razorpay, stripe, paddle, lemon] = [
    await connection('razorpay'),
    await connection('stripe'),
    await connection('paddle'),
    await connection('lemonsqueezy'),
  ];
  const insert = async (
    connectionId: string,
    provider: string,
    eventId: string,
    kind: string,
    payload: object,
    createdAt: string,
  ) =>
    sql`INSERT INTO payment_events
        (tenant_id, connection_id, provider, external_event_id, kind, payload, created_at)
        VALUES (${tenantId}, ${connectionId}, ${provider}, ${eventId}, ${kind},
          ${JSON.stringify(payload)}::jsonb, ${createdAt})`.execute(db);

  const captured = { event: 'payment.captured', payload: { payment: { entity: { id: 'pay_1' } } } };
  // The same Razorpay payment stored twice under two unsigned header ids (the old bug).
  await insert(razorpay, 'razorpay', 'evt_header_A', 'payment.succeeded', captured, '2024-01-01');
  await insert(razorpay, 'razorpay', 'evt_header_B', 'payment.succeeded', captured, '2024-01-02');
  await insert(
    razorpay,
    'razorpay',
    'evt_refund',
    'payment.refunded',
    {
      payload: { refund: { entity: { id: 'rfnd_1' } } },
    },
    '2024-01-03',
  );
  await insert(
    stripe,
    'stripe',
    'evt_s1',
    'payment.succeeded',
    {
      data: { object: { id: 'pi_1' } },
    },
    '2024-01-01',
  );
  await insert(
    stripe,
    'stripe',
    'evt_s2',
    'payment.refunded',
    {
      data: { object: { id: 'ch_1', amount_refunded: 500 } },
    },
    '2024-01-01',
  );
  await insert(
    stripe,
    'stripe',
    'evt_s3',
    'payment.failed',
    {
      data: { object: { id: 'pi_1' } },
    },
    '2024-01-01',
  );
  await insert(
    paddle,
    'paddle',
    'evt_p1',
    'payment.refunded',
    { data: { id: 'adj_1' } },
    '2024-01-01',
  );
  await insert(
    lemon,
    'lemonsqueezy',
    'order_refunded:orders:9:300',
    'payment.refunded',
    {
      data: { type: 'orders', id: '9', attributes: { refunded_amount: 300 } },
    },
    '2024-01-01',
  );

  await migrateToLatest(db);

  const { rows } = await sql<{ external_event_id: string; provider_object_id: string | null }>`
    SELECT external_event_id, provider_object_id FROM payment_events
     WHERE tenant_id = ${tenantId} ORDER BY external_event_id`.execute(db);
  expect(Object.fromEntries(rows.map((r) => [r.external_event_id, r.provider_object_id]))).toEqual({
    evt_header_A: 'pay_1',
    evt_header_B: null,
    evt_refund: 'rfnd_1',
    evt_s1: 'pi_1',
    evt_s2: 'ch_1:500',
    evt_s3: null,
    evt_p1: 'adj_1',
    'order_refunded:orders:9:300': 'orders:9:300',
  });

  // A retry of the stored payment, now keyed by the signed body: refused by the new index.
  await expect(
    sql`INSERT INTO payment_events
        (tenant_id, connection_id, provider, external_event_id, provider_object_id, kind)
        VALUES (${tenantId}, ${razorpay}, 'razorpay', 'payment.captured:pay_1:1', 'pay_1',
          'payment.succeeded')`.execute(db),
  ).rejects.toThrow(/payment_events_provider_object/);

  // Row-level security is forced again once the backfill is done.
  const { rows: forced } = await sql<{ forced: boolean }>`
    SELECT relforcerowsecurity AS forced FROM pg_class WHERE relname = 'payment_events'`.execute(
    db,
  );
  expect(forced).toEqual([{ forced: true }]);
});
