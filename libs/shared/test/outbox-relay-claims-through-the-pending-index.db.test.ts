import { withSystemScope, withTenant, type Db } from '@crm/shared/db';
import { InProcessBus, OutboxRelay, writeEvents } from '@crm/shared/events';
import { captureLogger, createTenant, eventually, isolatedTestDb } from '@crm/shared/testing';
import { sql } from 'kysely';
import { claimRoundSql, ROUND_SETTINGS } from '../src/events/relay';

/**
 * The relay's claim on an outbox full of rows published since the last vacuum, the state steady
 * single deliveries leave behind: their entries stay in the pending index until a vacuum, and a
 * bitmap scan (what Postgres picks here by itself) visits each of their heap rows in every
 * round. The relay's round settings make it walk the index in seq order instead.
 */
const { logger } = captureLogger();
let database: Db;

beforeAll(async () => {
  database = await isolatedTestDb();
  await sql`ALTER TABLE event_outbox SET (autovacuum_enabled = false)`.execute(database.db);
  // 20,000 rows written pending, then published: 20,000 dead entries in the pending index.
  await sql`
    INSERT INTO event_outbox (id, tenant_id, type, envelope)
    SELECT gen_random_uuid(), gen_random_uuid(), 'filler.event',
           json_build_object('filler', repeat('x', 300))
      FROM generate_series(1, 20000)`.execute(database.db);
  await sql`UPDATE event_outbox SET published_at = now(), attempts = 1`.execute(database.db);
});
afterAll(() => database.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
function scansOf(node: PlanNode): string[] {
  const own = node['Relation Name']
    ? [`${node['Node Type']} ${node['Index Name'] ?? ''}`.trim()]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

/** The scans the claim's plan makes, with or without the relay's round settings. */
function claimScans(withRoundSettings: boolean): Promise<string[]> {
  return withSystemScope(database.db, async (trx) => {
    if (withRoundSettings) await sql`SELECT ${ROUND_SETTINGS}`.execute(trx);
    const { rows } = await sql<{
      'QUERY PLAN': Array<{ Plan: PlanNode }>;
    }>`EXPLAIN (FORMAT JSON) ${claimRoundSql(1000)}`.execute(trx);
    return scansOf(rows[0]['QUERY PLAN'][0].Plan);
  });
}

describe('the relay claim on an outbox of published rows not yet vacuumed', () => {
  it('left to itself, Postgres would revisit them with a bitmap scan (the state this guards against)', async () => {
    expect(await claimScans(false)).toContain('Bitmap Heap Scan');
  });

  it('with the round settings it walks the pending index in seq order, no bitmap scan', async () => {
    const scans = await claimScans(true);
    expect(scans).toContain('Index Scan event_outbox_pending');
    expect(scans.filter((s) => s.startsWith('Bitmap'))).toEqual([]);
  });

  it('a relay round on this outbox publishes just the pending events, in order', async () => {
    const tenant = await createTenant(database);
    const bus = new InProcessBus({ logger });
    const publish = jest.spyOn(bus, 'publish');
    const written = await withTenant(database.db, tenant.id, (trx) =>
      writeEvents(
        trx,
        [1, 2, 3].map((n) => ({
          type: 'lead.created',
          tenant_id: tenant.id,
          record: { module: 'leads', id: `lead-${n}` },
          data: { n },
        })),
      ),
    );
    const relay = new OutboxRelay({ db: database.db, pool: database.pool, bus, logger });
    await relay.start();
    try {
      await eventually(async () => {
        const { rows } = await sql<{ pending: number }>`
          SELECT count(*)::int AS pending FROM event_outbox WHERE published_at IS NULL`.execute(
          database.db,
        );
        expect(rows[0].pending).toBe(0);
      });
    } finally {
      await relay.stop();
      await bus.close();
    }
    expect(publish.mock.calls.map(([event]) => event.id)).toEqual(written.map((e) => e.id));
    expect(written.map((e) => e.record.id)).toEqual(['lead-1', 'lead-2', 'lead-3']);
  });
});
