import { randomUUID } from 'node:crypto';
import { withSystemScope, withTenant } from '@crm/shared/db';
import { eventsOfRow, OUTBOX_BATCH_MAX, writeEvents } from '@crm/shared/events';
import { createTenant, testDb } from '@crm/shared/testing';
import { sql } from 'kysely';

/*
 * Migration 0016: outbox envelopes are compressed with lz4 where the server has it (PostgreSQL
 * builds may leave it out; the column then keeps pglz). A batch row large enough to be
 * compressed is stored lz4-compressed and reads back as written.
 */
const database = testDb();
afterAll(() => database.close());

async function serverHasLz4(): Promise<boolean> {
  try {
    await withSystemScope(database.db, (trx) =>
      sql`CREATE TEMP TABLE lz4_probe (v json COMPRESSION lz4) ON COMMIT DROP`.execute(trx),
    );
    return true;
  } catch {
    return false;
  }
}

it('a batch row of envelopes is stored lz4-compressed when the server has lz4, and reads back whole', async () => {
  const tenant = await createTenant(database);
  const events = Array.from({ length: OUTBOX_BATCH_MAX }, (_, i) => ({
    type: 'lead.created',
    tenant_id: tenant.id,
    record: { module: 'leads', id: randomUUID() },
    data: { email: `lead-${i}@example.test`, status: 'new', source: 'api_import' },
  }));
  const written = await withTenant(database.db, tenant.id, (trx) => writeEvents(trx, events));

  const { rows } = await withSystemScope(database.db, (trx) =>
    sql<{ compression: string | null; envelope: unknown; event_count: number }>`
      SELECT pg_column_compression(envelope) AS compression, envelope, event_count
        FROM event_outbox WHERE tenant_id = ${tenant.id}`.execute(trx),
  );
  expect(rows).toHaveLength(1);
  expect(rows[0].compression).toBe((await serverHasLz4()) ? 'lz4' : 'pglz');
  expect(rows[0].event_count).toBe(OUTBOX_BATCH_MAX);
  expect(eventsOfRow(rows[0].envelope)).toEqual(written);
});
