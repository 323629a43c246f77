import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { createTenant, ledgerRows, tenantRows, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import {
  NotRoutedToTenant,
  PermanentFailure,
  recordDelivery,
  type Delivery,
} from '../src/ledger/record-delivery';

/**
 * The inbound_events ledger: each (provider, delivery id) is processed once; a redelivery runs
 * nothing; a failed delivery rolls back its writes, is kept as `failed` and may be retried; tenant
 * writes happen under row-level security in the same transaction. A permanent failure (a value its
 * column cannot hold) also rolls back, but is recorded and returned, not thrown. A failure after
 * the handler routed the delivery to one tenant is that tenant's row; a re-processing that does
 * not route to the asking tenant alone rolls back and records nothing.
 */
describe('recordDelivery', () => {
  const db = testDb();
  const provider = `test_${randomUUID().slice(0, 8)}`;
  let tenantId: string;
  let otherTenantId: string;
  // For tables of cases built before the tenants exist.
  const tenantIdOf = () => tenantId;
  const otherTenantIdOf = () => otherTenantId;
  afterAll(() => db.close());
  beforeAll(async () => {
    tenantId = (await createTenant(db)).id;
    otherTenantId = (await createTenant(db)).id;
  });

  const delivery = (deliveryId: string): Delivery => ({
    provider,
    deliveryId,
    eventType: 'thing.happened',
    rawBody: Buffer.from('{"id":"evt_1"}'),
    contentType: 'application/json',
    verification: 'verified',
  });

  /** Stores a network account for `tenant` inside the delivery: a tenant write to observe. */
  const storeAccount =
    (tenant: string, externalId: string) =>
    async ({ asTenant }: Parameters<Parameters<typeof recordDelivery>[2]>[0]) => {
      await asTenant(tenant, (trx) =>
        trx
          .insertInto('network_accounts')
          .values({ tenant_id: tenant, external_account_id: externalId })
          .execute(),
      );
      return { outcome: 'processed' as const, tenantId: tenant, detail: 'stored one account' };
    };

  it('records a new delivery with its outcome and tenant, and runs the handler once', async () => {
    const externalId = `acct-${randomUUID()}`;
    const result = await recordDelivery(db.db, delivery('d-1'), storeAccount(tenantId, externalId));
    expect(result).toEqual({
      duplicate: false,
      ledgerId: expect.any(String),
      result: { outcome: 'processed', tenantId, detail: 'stored one account' },
    });
    const [row] = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === 'd-1');
    expect(row).toMatchObject({
      tenant_id: tenantId,
      event_type: 'thing.happened',
      raw_body: '{"id":"evt_1"}',
      verification: 'verified',
      outcome: 'processed',
      detail: 'stored one account',
      attempts: 1,
    });
    expect(row.processed_at).toBeInstanceOf(Date);
    const accounts = await tenantRows(db, 'network_accounts', tenantId);
    expect(accounts.map((a) => a.external_account_id)).toContain(externalId);
  });

  it('treats the same delivery id again as a redelivery: nothing runs, nothing new is written', async () => {
    const handler = jest.fn(storeAccount(tenantId, `acct-${randomUUID()}`));
    const before = await tenantRows(db, 'network_accounts', tenantId);
    await expect(recordDelivery(db.db, delivery('d-1'), handler)).resolves.toEqual({
      duplicate: true,
    });
    expect(handler).not.toHaveBeenCalled();
    expect(await tenantRows(db, 'network_accounts', tenantId)).toHaveLength(before.length);
    const rows = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === 'd-1');
    expect(rows).toHaveLength(1);
    expect(rows[0].attempts).toBe(1);
  });

  it('rolls back a failed handler, keeps the delivery as failed, and lets a retry process it', async () => {
    const externalId = `acct-${randomUUID()}`;
    await expect(
      recordDelivery(db.db, delivery('d-2'), async (scope) => {
        await storeAccount(tenantId, externalId)(scope);
        throw new Error('downstream exploded');
      }),
    ).rejects.toThrow('downstream exploded');
    let [row] = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === 'd-2');
    expect(row).toMatchObject({
      outcome: 'failed',
      detail: 'downstream exploded',
      tenant_id: null,
    });
    const stored = await tenantRows(db, 'network_accounts', tenantId);
    expect(stored.map((a) => a.external_account_id)).not.toContain(externalId);

    const retried = await recordDelivery(
      db.db,
      delivery('d-2'),
      storeAccount(tenantId, externalId),
    );
    expect(retried.duplicate).toBe(false);
    [row] = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === 'd-2');
    expect(row).toMatchObject({ outcome: 'processed', attempts: 2, tenant_id: tenantId });
  });

  it('a PermanentFailure: writes rolled back, kept as failed with the reason and tenant, returned as not stored', async () => {
    const externalId = `acct-${randomUUID()}`;
    const run = () =>
      recordDelivery(db.db, delivery('d-6'), async (scope) => {
        await storeAccount(tenantId, externalId)(scope);
        throw new PermanentFailure('The amount 1e99 does not fit', tenantId);
      });
    for (let attempt = 1; attempt <= 2; attempt++) {
      await expect(run()).resolves.toEqual({
        duplicate: false,
        ledgerId: expect.any(String),
        notStored: 'The amount 1e99 does not fit',
      });
      const rows = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === 'd-6');
      expect(rows).toEqual([
        expect.objectContaining({
          outcome: 'failed',
          tenant_id: tenantId,
          detail: 'The amount 1e99 does not fit',
        }),
      ]);
      const stored = await tenantRows(db, 'network_accounts', tenantId);
      expect(stored.map((a) => a.external_account_id)).not.toContain(externalId);
    }
  });

  it('a Postgres data exception (numeric overflow) is permanent too: recorded, answered in our words', async () => {
    const result = await recordDelivery(db.db, delivery('d-7'), async (scope) => {
      await sql`SELECT 1e20::numeric(16, 2)`.execute(scope.trx);
      return { outcome: 'processed' as const };
    });
    expect(result).toEqual({
      duplicate: false,
      ledgerId: expect.any(String),
      notStored: 'A value in the delivery cannot be stored',
    });
    const [row] = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === 'd-7');
    expect(row).toMatchObject({
      outcome: 'failed',
      tenant_id: null,
      detail: 'Not stored: numeric field overflow (SQLSTATE 22003)',
    });
  });

  it('a failure after the handler routed the delivery to one tenant is kept as that tenant’s row; to several, as no tenant’s', async () => {
    for (const [deliveryId, routed, expected] of [
      ['d-8', [tenantId], tenantId],
      ['d-9', [tenantId, otherTenantId], null],
    ] as const) {
      await expect(
        recordDelivery(db.db, delivery(deliveryId), async (scope) => {
          scope.routeTo(routed);
          throw new Error('downstream exploded');
        }),
      ).rejects.toThrow('downstream exploded');
      const [row] = (await ledgerRows(db, provider)).filter((r) => r.delivery_id === deliveryId);
      expect(row).toMatchObject({ outcome: 'failed', tenant_id: expected });
    }
  });

  describe('a re-processing (reprocessedFor)', () => {
    const reprocessing = (deliveryId: string): Delivery => ({
      ...delivery(deliveryId),
      tenantId,
      reprocessedFor: tenantId,
    });
    const failedRow = async (deliveryId: string) => {
      await expect(
        recordDelivery(db.db, { ...delivery(deliveryId), tenantId }, async () => {
          throw new Error('first attempt failed');
        }),
      ).rejects.toThrow('first attempt failed');
      return (await ledgerRows(db, provider)).find((r) => r.delivery_id === deliveryId);
    };

    it.each([
      ['routed to another tenant', [otherTenantIdOf]],
      ['routed to it and another', [tenantIdOf, otherTenantIdOf]],
      ['routed to none', []],
    ])('%s: refused before the handler writes, nothing recorded', async (_, routed) => {
      const deliveryId = `r-${randomUUID()}`;
      const before = await failedRow(deliveryId);
      const externalId = `acct-${randomUUID()}`;
      const written = jest.fn();
      await expect(
        recordDelivery(db.db, reprocessing(deliveryId), async (scope) => {
          scope.routeTo(routed.map((of) => of()));
          written();
          return storeAccount(tenantId, externalId)(scope);
        }),
      ).rejects.toBeInstanceOf(NotRoutedToTenant);
      expect(written).not.toHaveBeenCalled();
      expect((await ledgerRows(db, provider)).find((r) => r.delivery_id === deliveryId)).toEqual(
        before,
      );
    });

    it.each([
      ['of another tenant', () => ({ outcome: 'processed' as const, tenantId: otherTenantId })],
      ['of no tenant', () => ({ outcome: 'unmatched' as const })],
    ])('an outcome %s rolls back what the handler wrote, nothing recorded', async (_, outcome) => {
      const deliveryId = `r-${randomUUID()}`;
      const before = await failedRow(deliveryId);
      const externalId = `acct-${randomUUID()}`;
      await expect(
        recordDelivery(db.db, reprocessing(deliveryId), async (scope) => {
          await storeAccount(tenantId, externalId)(scope);
          return outcome();
        }),
      ).rejects.toBeInstanceOf(NotRoutedToTenant);
      const stored = await tenantRows(db, 'network_accounts', tenantId);
      expect(stored.map((a) => a.external_account_id)).not.toContain(externalId);
      expect((await ledgerRows(db, provider)).find((r) => r.delivery_id === deliveryId)).toEqual(
        before,
      );
    });

    it('a permanent failure of another tenant is refused too: the row never moves to it', async () => {
      const deliveryId = `r-${randomUUID()}`;
      const before = await failedRow(deliveryId);
      await expect(
        recordDelivery(db.db, reprocessing(deliveryId), async () => {
          throw new PermanentFailure('does not fit', otherTenantId);
        }),
      ).rejects.toBeInstanceOf(NotRoutedToTenant);
      expect((await ledgerRows(db, provider)).find((r) => r.delivery_id === deliveryId)).toEqual(
        before,
      );
    });

    it('routed to the asking tenant alone: processed as that tenant’s', async () => {
      const deliveryId = `r-${randomUUID()}`;
      await failedRow(deliveryId);
      const result = await recordDelivery(db.db, reprocessing(deliveryId), async (scope) => {
        scope.routeTo([tenantId]);
        return storeAccount(tenantId, `acct-${randomUUID()}`)(scope);
      });
      expect(result).toMatchObject({ duplicate: false, result: { tenantId } });
      const row = (await ledgerRows(db, provider)).find((r) => r.delivery_id === deliveryId);
      expect(row).toMatchObject({ outcome: 'processed', tenant_id: tenantId, attempts: 2 });
    });
  });

  it('runs asTenant under row-level security: a row for another tenant is refused', async () => {
    await expect(
      recordDelivery(db.db, delivery('d-3'), async ({ asTenant }) => {
        await asTenant(tenantId, (trx) =>
          trx
            .insertInto('network_accounts')
            .values({ tenant_id: otherTenantId, external_account_id: `acct-${randomUUID()}` })
            .execute(),
        );
        return { outcome: 'processed' as const };
      }),
    ).rejects.toThrow(/row-level security/);
    expect(await tenantRows(db, 'network_accounts', otherTenantId)).toEqual([]);
  });

  it('returns to the system role after asTenant, so the ledger update and lookups still work', async () => {
    const result = await recordDelivery(db.db, delivery('d-4'), async (scope) => {
      await storeAccount(tenantId, `acct-${randomUUID()}`)(scope);
      // A cross-tenant read only the system role may do.
      const other = await scope.trx
        .selectFrom('tenants')
        .select('id')
        .where('id', '=', otherTenantId)
        .executeTakeFirst();
      return { outcome: other ? ('processed' as const) : ('failed' as const), tenantId };
    });
    expect(result).toMatchObject({ duplicate: false, result: { outcome: 'processed' } });
  });

  it('processes one of two concurrent deliveries with the same id and reports the other as a duplicate', async () => {
    const results = await Promise.all(
      [1, 2].map(() =>
        recordDelivery(db.db, delivery('d-5'), storeAccount(tenantId, `acct-${randomUUID()}`)),
      ),
    );
    expect(results.filter((r) => r.duplicate)).toHaveLength(1);
    const rows = await withSystemScope(db.db, (trx) =>
      trx
        .selectFrom('inbound_events')
        .selectAll()
        .where('provider', '=', provider)
        .where('delivery_id', '=', 'd-5')
        .execute(),
    );
    expect(rows).toHaveLength(1);
  });
});
