import { sql } from 'kysely';
import { withSystemScope, withTenant } from '@crm/shared/db';
import { createTenant, eventually, outboxEvents, testDb } from '@crm/shared/testing';
import { upsertLeadFillingBlanks } from '../src/leads/leads.repository';
import type { LeadInput } from '../src/leads/normalize-lead';

/**
 * upsertLeadFillingBlanks (the public form's lead write) beyond what the form's e2e tests
 * show: stored values a form can only meet when another writer put them there ('' columns,
 * custom_fields that are not an object), and another transaction creating the same email.
 */
const database = testDb();
const { db } = database;
afterAll(() => database.close());

const lead = (fields: Partial<LeadInput> = {}): LeadInput => ({
  email: 'pat@example.com',
  custom_fields: {},
  ...fields,
});
const store = (tenantId: string, input: LeadInput) =>
  withTenant(db, tenantId, (trx) => upsertLeadFillingBlanks(trx, tenantId, input, 'web_form'));

function leadsOf(tenantId: string) {
  return withSystemScope(db, (trx) =>
    trx.selectFrom('crm_leads').selectAll().where('tenant_id', '=', tenantId).execute(),
  );
}
async function eventTypesOf(tenantId: string) {
  return (await outboxEvents(database, tenantId)).map((e) => e.type);
}
/** A lead written straight to the table, as no API writes it. */
function insertRaw(tenantId: string, columns: { first_name: string; custom_fields: string }) {
  return withSystemScope(db, (trx) =>
    sql`INSERT INTO crm_leads (tenant_id, email, first_name, phone, custom_fields)
        VALUES (${tenantId}, 'pat@example.com', ${columns.first_name}, '555',
                ${columns.custom_fields}::jsonb)`.execute(trx),
  );
}

describe('upsertLeadFillingBlanks', () => {
  it("fills a column stored as '' and keeps custom_fields that are not an object", async () => {
    const tenant = await createTenant(database);
    await insertRaw(tenant.id, { first_name: '', custom_fields: '["legacy"]' });
    const stored = await store(
      tenant.id,
      lead({ first_name: 'Pat', phone: '999', custom_fields: { a: 1 } }),
    );
    expect(stored).toMatchObject({ created: false, changed: true, source: 'api_import' });
    expect(await leadsOf(tenant.id)).toEqual([
      expect.objectContaining({ first_name: 'Pat', phone: '555', custom_fields: ['legacy'] }),
    ]);
    expect(await eventTypesOf(tenant.id)).toEqual(['lead.updated']);
  });

  it('a lead another transaction creates meanwhile is waited for, then only filled', async () => {
    const tenant = await createTenant(database);
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    const first = withTenant(db, tenant.id, async (trx) => {
      const created = await upsertLeadFillingBlanks(
        trx,
        tenant.id,
        lead({ first_name: 'First' }),
        'web_form',
      );
      inserted();
      await committing;
      return created;
    });
    await insertedYet;
    const second = store(tenant.id, lead({ first_name: 'Second', phone: '555' }));
    // The second insert waits on the first one's uncommitted row, then takes its conflict way.
    await eventually(async () => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'
           AND query ILIKE '%INSERT INTO crm_leads AS l%'`.execute(db);
      expect(rows[0].n).toBeGreaterThan(0);
    });
    commit();

    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ created: true, changed: true });
    expect(b).toEqual({ ...a, created: false, changed: true });
    expect(await leadsOf(tenant.id)).toEqual([
      expect.objectContaining({ id: a.id, first_name: 'First', phone: '555', source: 'web_form' }),
    ]);
    expect(await eventTypesOf(tenant.id)).toEqual(['lead.created', 'lead.updated']);
  });
});
