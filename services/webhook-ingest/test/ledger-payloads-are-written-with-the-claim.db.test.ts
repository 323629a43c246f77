import { randomUUID } from 'node:crypto';
import { payloadWeek, withSystemScope } from '@crm/shared/db';
import { ledgerRows, roundTripsOf, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import { recordDeliveries } from '../src/ledger/record-deliveries';
import { recordDelivery, type Delivery } from '../src/ledger/record-delivery';

/*
 * A delivery's payload (raw body and headers) goes into inbound_event_payloads, in the partition
 * of the week it was received, by the same statement that claims its ledger row: no round trip
 * more per delivery, and the ledger row's own raw_body and headers stay null. A failed delivery
 * claimed again moves its payload to its new received_at (the delivery log orders by it), and a
 * re-processing, which sends no headers, keeps the original's.
 */
const database = testDb();
afterAll(() => database.close());

// A provider key of this file's own: no other test writes its rows.
const provider = `payload_test_${randomUUID().slice(0, 8)}`;
const BODY = '{"id":"evt_payload","type":"thing.happened"}';

function delivery(deliveryId: string, withHeaders = true): Delivery {
  return {
    provider,
    deliveryId,
    eventType: 'thing.happened',
    rawBody: Buffer.from(BODY),
    contentType: 'application/json',
    verification: 'verified',
    ...(withHeaders && {
      headers: { 'content-type': 'application/json', 'x-provider-signature': 'sig-value' },
    }),
  };
}
const STORED_HEADERS = {
  'content-type': 'application/json',
  'x-provider-signature': '[redacted]',
};

const processed = async () => ({ outcome: 'processed' as const, tenantId: null });
const failing = async (): Promise<never> => {
  throw new Error('simulated outage');
};

/** The ledger row itself (its own payload columns) and every payload row of it. */
async function stored(deliveryId: string) {
  return withSystemScope(database.db, async (trx) => {
    const { rows: ledger } = await sql<{
      id: string;
      received_at: string;
      raw_body: string | null;
      headers: unknown;
      attempts: number;
      outcome: string;
    }>`SELECT id, received_at::text, raw_body, headers, attempts, outcome FROM inbound_events
        WHERE provider = ${provider} AND delivery_id = ${deliveryId}`.execute(trx);
    const { rows: payloads } = await sql<{
      partition: string;
      received_at: string;
      raw_body: string;
      headers: unknown;
    }>`SELECT tableoid::regclass::text AS partition, received_at::text, raw_body, headers
         FROM inbound_event_payloads WHERE ledger_id = ${ledger[0]?.id ?? randomUUID()}`.execute(
      trx,
    );
    return { row: ledger[0], payloads };
  });
}

const partitionOf = (receivedAt: string) =>
  `inbound_event_payload_partitions.${payloadWeek(new Date(receivedAt)).name}`;

it("a delivery keeps its payload in its week's partition, and none in its ledger row", async () => {
  const id = `new-${randomUUID()}`;
  await recordDelivery(database.db, delivery(id), processed);
  const { row, payloads } = await stored(id);
  expect(row).toMatchObject({ raw_body: null, headers: null, outcome: 'processed' });
  expect(payloads).toEqual([
    {
      partition: partitionOf(row.received_at),
      received_at: row.received_at,
      raw_body: BODY,
      headers: STORED_HEADERS,
    },
  ]);
  // What the tests read back through ledgerRows: the payload joined in.
  const [read] = (await ledgerRows(database, provider)).filter((r) => r.delivery_id === id);
  expect(read).toMatchObject({ raw_body: BODY, headers: STORED_HEADERS });
});

it('a delivery costs the round trips it cost before: BEGIN with the scope, the claim (its payload included), the outcome, COMMIT', async () => {
  const sent = await roundTripsOf(database.pool, () =>
    recordDelivery(database.db, delivery(`trips-${randomUUID()}`), processed),
  );
  expect(sent).toHaveLength(4);
  expect(sent[0]).toBe('begin; SET LOCAL ROLE crm_system');
  expect(sent[1]).toMatch(/INSERT INTO inbound_events[\s\S]*INSERT INTO inbound_event_payloads/);
  expect(sent[2]).toMatch(/^update "inbound_events"/);
  expect(sent[3]).toBe('commit');
});

it("a delivery locks the payload table and its week's partition alone: dropping an old week never waits for deliveries", async () => {
  let locked: string[] = [];
  await recordDelivery(database.db, delivery(`locks-${randomUUID()}`), async ({ trx }) => {
    const { rows } = await sql<{ relname: string }>`
      SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
       WHERE l.pid = pg_backend_pid() AND c.relkind IN ('r', 'p')
         AND c.relname LIKE 'inbound_event_payloads%' ORDER BY c.relname`.execute(trx);
    locked = rows.map((row) => row.relname);
    return processed();
  });
  expect(locked).toEqual(['inbound_event_payloads', payloadWeek(new Date()).name]);
});

it('a failed delivery claimed again moves its payload to the new received_at, keeping its headers when none are sent', async () => {
  const id = `retried-${randomUUID()}`;
  await expect(recordDelivery(database.db, delivery(id), failing)).rejects.toThrow(
    'simulated outage',
  );
  const failed = await stored(id);
  expect(failed.row).toMatchObject({ outcome: 'failed', attempts: 1, raw_body: null });
  expect(failed.payloads).toEqual([
    expect.objectContaining({ received_at: failed.row.received_at, headers: STORED_HEADERS }),
  ]);

  // The re-processing's claim: no headers.
  await recordDelivery(database.db, delivery(id, false), processed);
  const after = await stored(id);
  expect(after.row).toMatchObject({ outcome: 'processed', attempts: 2, headers: null });
  expect(after.row.received_at).not.toBe(failed.row.received_at);
  expect(after.payloads).toEqual([
    {
      partition: partitionOf(after.row.received_at),
      received_at: after.row.received_at,
      raw_body: BODY,
      headers: STORED_HEADERS,
    },
  ]);
});

it('a failure recorded again keeps the payload of the first attempt', async () => {
  const id = `failed-twice-${randomUUID()}`;
  await expect(recordDelivery(database.db, delivery(id), failing)).rejects.toThrow();
  const first = await stored(id);
  // The retry fails too: its claim rolls back with the handler, the failure is recorded again.
  await expect(recordDelivery(database.db, delivery(id, false), failing)).rejects.toThrow();
  const second = await stored(id);
  expect(second.row).toMatchObject({ outcome: 'failed', received_at: first.row.received_at });
  expect(second.payloads).toEqual(first.payloads);
});

it('a row recorded before the payload table, claimed again, moves its payload out of the row', async () => {
  const id = `legacy-${randomUUID()}`;
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('inbound_events')
      .values({
        provider,
        delivery_id: id,
        raw_body: BODY,
        headers: JSON.stringify({ 'content-type': 'application/json', legacy: 'yes' }),
        verification: 'verified',
        outcome: 'failed',
      })
      .execute(),
  );
  await recordDelivery(database.db, delivery(id, false), processed);
  const { row, payloads } = await stored(id);
  expect(row).toMatchObject({ outcome: 'processed', raw_body: null, headers: null });
  expect(payloads).toEqual([
    expect.objectContaining({
      received_at: row.received_at,
      raw_body: BODY,
      headers: { 'content-type': 'application/json', legacy: 'yes' },
    }),
  ]);
});

it("a group's claim writes each claimed delivery's payload, and none for a redelivery", async () => {
  const done = `group-done-${randomUUID()}`;
  await recordDelivery(database.db, delivery(done), processed);
  const before = await stored(done);
  const ids = [`group-a-${randomUUID()}`, `group-b-${randomUUID()}`, done];
  const answers = await recordDeliveries(
    database.db,
    ids.map((id) => delivery(id)),
    async (_scope, indexes) => indexes.map(() => ({ outcome: 'processed', tenantId: null })),
    processed,
  );
  expect(answers.map((a) => 'value' in a && a.value.duplicate)).toEqual([false, false, true]);
  for (const id of ids.slice(0, 2)) {
    const { row, payloads } = await stored(id);
    expect(payloads).toEqual([
      expect.objectContaining({ received_at: row.received_at, raw_body: BODY }),
    ]);
  }
  expect(await stored(done)).toEqual(before);
});
