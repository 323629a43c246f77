import { withSystemScope, withTenant } from '@crm/shared/db';
import type { CursorPage } from '@crm/shared/pagination';
import { createTenant, planReads, selectsSent, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import { listEvents } from '../src/events/events.repository';
import type { EventFilters } from '../src/events/events.schema';

/**
 * Database tier: the tenant's recent events (GET /api/events) are read in order from
 * event_outbox_by_tenant (migration 0026), by page and by cursor (one range of it after the
 * page before), unfiltered and by type, on 5,000 events of the tenant among 20,000 of others.
 */
const database = testDb();
afterAll(() => database.close());

const CURSORS = { secret: 'explain test cursor secret' };
const INDEX = 'event_outbox_by_tenant';
let tenantId: string;

async function insertEvents(tenant: string, count: number) {
  await withSystemScope(database.db, (trx) =>
    sql`INSERT INTO event_outbox (id, tenant_id, type, envelope, created_at)
      SELECT gen_random_uuid(), ${tenant}::uuid,
             CASE WHEN g % 3 = 0 THEN 'deal.updated' ELSE 'lead.created' END,
             json_build_object('record', json_build_object('module', 'leads', 'id', g::text),
                               'occurred_at', now(), 'data', json_build_object('n', g)),
             now() - g * interval '1 second'
      FROM generate_series(1, ${count}) g`.execute(trx),
  );
}

beforeAll(async () => {
  tenantId = (await createTenant(database)).id;
  await insertEvents(tenantId, 5000);
  await insertEvents((await createTenant(database)).id, 20000);
  await sql`ANALYZE event_outbox`.execute(database.db);
}, 120_000);

const page = (sortOrder: 'asc' | 'desc', cursor?: string) => ({
  page: 1,
  pageSize: 20,
  sortBy: 'created_at' as const,
  sortOrder,
  cursor,
});

type List = (trx: never, cursor?: string) => Promise<CursorPage<{ id: string }>>;

async function expectPagesRead(list: List) {
  const [first] = await selectsSent(database, tenantId, (trx) => list(trx));
  expect(await planReads(database, tenantId, first)).toEqual({
    indexes: [INDEX],
    sorts: false,
    seqScan: false,
  });
  const one = await withTenant(database.db, tenantId, (trx) => list(trx as never));
  let two: CursorPage<{ id: string }> | undefined;
  const sent = await selectsSent(database, tenantId, async (trx) => {
    two = await list(trx, one.nextCursor as string);
  });
  expect(sent).toHaveLength(1);
  expect(sent[0].sql).toMatch(/\) [<>] \(CAST\(/);
  expect(await planReads(database, tenantId, sent[0])).toEqual({
    indexes: [INDEX],
    sorts: false,
    seqScan: false,
  });
  const seen = new Set(one.items.map((e) => e.id));
  expect(two?.items).toHaveLength(20);
  expect(two?.items.some((e) => seen.has(e.id))).toBe(false);
}

describe('the recent events list reads its index', () => {
  it.each<[string, EventFilters]>([
    ['unfiltered', {}],
    ['by type', { type: 'deal.updated' }],
  ])('%s, by page and by cursor, either way', async (_name, filters) => {
    for (const order of ['asc', 'desc'] as const) {
      await expectPagesRead((trx, cursor) =>
        listEvents(trx, tenantId, page(order, cursor), filters, CURSORS),
      );
    }
  });
});
