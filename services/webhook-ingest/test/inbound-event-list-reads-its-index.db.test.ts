import { withSystemScope, withTenant } from '@crm/shared/db';
import { createTenant, planReads, selectsSent, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import { listInboundEvents } from '../src/integrations/inbound-events.repository';

/**
 * Database tier: the inbound delivery ledger's list, newest first or oldest first, reads
 * inbound_events_by_tenant `(tenant_id, received_at, id)` (migration 0023) in order, by page
 * and by cursor (one range of it after the page before), on 20,000 deliveries of three
 * providers and three outcomes; filtered by provider, outcome and a received_at range too
 * (the range is a range of the same index; provider and outcome are checked on its rows).
 */
const database = testDb();
afterAll(() => database.close());

const CURSORS = { secret: 'explain test cursor secret' };
const INDEX = 'inbound_events_by_tenant';
let tenantId: string;

beforeAll(async () => {
  tenantId = (await createTenant(database)).id;
  await withSystemScope(database.db, (trx) =>
    sql`INSERT INTO inbound_events
        (tenant_id, provider, delivery_id, verification, outcome, received_at)
      SELECT ${tenantId}, (ARRAY['email', 'storefront_a', 'payments_stripe'])[g % 3 + 1],
             ${`${tenantId}-`} || g, 'verified',
             (ARRAY['processed', 'failed', 'ignored'])[g / 3 % 3 + 1],
             now() - g * interval '1 second'
      FROM generate_series(1, 20000) g`.execute(trx),
  );
  await sql`ANALYZE inbound_events`.execute(database.db);
}, 120_000);

const page = (sortOrder: 'asc' | 'desc', cursor?: string) => ({
  page: 1,
  pageSize: 20,
  sortBy: 'received_at' as const,
  sortOrder,
  cursor,
});

const FILTERED = {
  filters: { provider: 'storefront_a', outcome: 'failed' as const },
  range: {
    from: new Date(Date.now() - 15_000_000),
    to: new Date(Date.now() - 2_000_000),
  },
};

it.each([
  ['unfiltered', { filters: {}, range: { from: undefined, to: undefined } }],
  ['by provider, outcome and time', FILTERED],
])(
  `the ledger's pages read ${INDEX} in order, by page and by cursor, either way: %s`,
  async (_, how) => {
    for (const order of ['asc', 'desc'] as const) {
      const list = (trx: never, cursor?: string) =>
        listInboundEvents(trx, tenantId, page(order, cursor), how.filters, how.range, CURSORS);
      const [first] = await selectsSent(database, tenantId, (trx) => list(trx));
      expect(await planReads(database, tenantId, first)).toEqual({
        indexes: [INDEX],
        sorts: false,
        seqScan: false,
      });
      const one = await withTenant(database.db, tenantId, (trx) => list(trx as never));
      expect(one.items).toHaveLength(20);
      const sent = await selectsSent(database, tenantId, (trx) => list(trx, one.nextCursor!));
      expect(sent).toHaveLength(1);
      expect(sent[0].sql).toMatch(/\) [<>] \(CAST\(/);
      expect(await planReads(database, tenantId, sent[0])).toEqual({
        indexes: [INDEX],
        sorts: false,
        seqScan: false,
      });
    }
  },
);
