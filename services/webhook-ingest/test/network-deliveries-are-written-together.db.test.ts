import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  tenantRows,
  testDb,
} from '@crm/test-kit';
import { sql } from 'kysely';
import { recordDeliveries } from '../src/ledger/record-deliveries';
import type { Delivery } from '../src/ledger/record-delivery';
import { classifyBatch } from '../src/providers/network/batch';
import {
  handleNetworkBatch,
  handleNetworkBatches,
  type NetworkOutcome,
} from '../src/providers/network/network-delivery';

/*
 * Group commit of network deliveries: concurrent deliveries are written in
 * one transaction, and each still gets the answer it would have got alone, in arrival order.
 */
const database = testDb();
afterAll(() => database.close());

async function connectedAccount() {
  const tenant = await createTenant(database);
  const externalAccountId = `acc-${randomUUID()}`;
  await insertRow(database, 'network_accounts', {
    proven_at: new Date(), // a proven claim: its deliveries are routed
    tenant_id: tenant.id,
    external_account_id: externalAccountId,
  });
  return { tenantId: tenant.id, externalAccountId };
}

const event = (account: string, id: string) => ({
  id,
  type: 'INVITATION_SENT',
  account_id: account,
  occurred_at: '2026-11-24T10:00:00Z',
  actor: { name: 'Ann' },
});

function delivery(body: unknown, deliveryId = randomUUID()) {
  const raw = JSON.stringify(body);
  return {
    delivery: {
      provider: 'network',
      deliveryId: `group-test:${deliveryId}`,
      eventType: 'batch',
      rawBody: Buffer.from(raw),
      contentType: 'application/json',
      verification: 'verified',
    } satisfies Delivery,
    batch: classifyBatch(body),
  };
}

/** The transaction ids that wrote the ledger rows of these deliveries. */
async function writers(deliveries: Delivery[]): Promise<string[]> {
  const ids = deliveries.map((d) => d.deliveryId);
  const { rows } = await withSystemScope(database.db, (trx) =>
    sql<{ xmin: string }>`SELECT DISTINCT xmin::text AS xmin FROM inbound_events
      WHERE provider = 'network' AND delivery_id = ANY(${ids}::text[])`.execute(trx),
  );
  return rows.map((row) => row.xmin);
}

it('stores a group in one transaction, each delivery answered as if it came alone', async () => {
  const north = await connectedAccount();
  const south = await connectedAccount();
  const [e1, e2, e3, e4, e5] = Array.from({ length: 5 }, () => `evt-${randomUUID()}`);
  const first = delivery({
    events: [event(north.externalAccountId, e1), event(north.externalAccountId, e2)],
  });
  const items = [
    first,
    delivery({ events: [event(south.externalAccountId, e3), event('acc-unknown', e4)] }),
    // The same delivery again within the group: a duplicate, as a redelivery would be.
    { ...first },
    // An event the first delivery stored: skipped, counted for the first only.
    delivery([event(north.externalAccountId, e1), event(north.externalAccountId, e5)]),
  ];
  const answers = await recordDeliveries(
    database.db,
    items.map((item) => item.delivery),
    (scope, indexes) =>
      handleNetworkBatches(
        scope,
        indexes.map((i) => items[i].batch),
      ),
    (scope, index) => handleNetworkBatch(scope, items[index].batch),
  );

  const result = (outcome: Partial<NetworkOutcome>) => ({
    value: {
      duplicate: false,
      ledgerId: expect.any(String),
      result: expect.objectContaining(outcome),
    },
  });
  expect(answers).toEqual([
    result({
      counts: { inserted: 2, unmatched: 0, unsupported: 0 },
      outcome: 'processed',
      tenantId: north.tenantId,
    }),
    result({
      counts: { inserted: 1, unmatched: 1, unsupported: 0 },
      outcome: 'processed',
      tenantId: south.tenantId,
    }),
    { value: { duplicate: true } },
    result({
      counts: { inserted: 1, unmatched: 0, unsupported: 0 },
      detail: 'inserted 1, unmatched 0, unsupported 0, already stored 1',
    }),
  ]);

  expect(await writers(items.map((item) => item.delivery))).toHaveLength(1);
  const northRows = await tenantRows(database, 'network_events', north.tenantId);
  expect(northRows.map((row) => row.external_event_id).sort()).toEqual([e1, e2, e5].sort());
  expect(
    (await tenantRows(database, 'network_events', south.tenantId)).map((r) => r.external_event_id),
  ).toEqual([e3]);
  const northEvents = await outboxEvents(database, north.tenantId);
  expect(
    northEvents.map((e) => (e.envelope.data as { external_event_id: string }).external_event_id),
  ).toEqual([e1, e2, e5]);
  expect(await outboxEvents(database, south.tenantId)).toHaveLength(1);

  const ledger = (await ledgerRows(database, 'network')).filter((row) =>
    items.some((item) => item.delivery.deliveryId === row.delivery_id),
  );
  expect(ledger).toHaveLength(3);
  expect(ledger.every((row) => row.outcome === 'processed' && row.attempts === 1)).toBe(true);
});

it('when the group cannot be written, each delivery is written on its own and keeps its answer', async () => {
  const account = await connectedAccount();
  const items = [1, 2, 3].map(() =>
    delivery(event(account.externalAccountId, `evt-${randomUUID()}`)),
  );
  const answers = await recordDeliveries(
    database.db,
    items.map((item) => item.delivery),
    async () => {
      throw new Error('the group transaction failed');
    },
    (scope, index) => handleNetworkBatch(scope, items[index].batch),
  );
  expect(answers).toEqual(
    items.map(() => ({
      value: expect.objectContaining({
        duplicate: false,
        result: expect.objectContaining({ counts: { inserted: 1, unmatched: 0, unsupported: 0 } }),
      }),
    })),
  );
  // Nothing of the failed group was kept: three transactions of their own, three rows.
  expect(await writers(items.map((item) => item.delivery))).toHaveLength(3);
  expect(await tenantRows(database, 'network_events', account.tenantId)).toHaveLength(3);
});
