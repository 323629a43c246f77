import { sql } from 'kysely';
import { withSystemScope, withTenant } from '@crm/shared/db';
import { createTenant, eventually, outboxEvents, testDb } from '@crm/shared/testing';
import { upsertLeads } from '../src/leads/leads.repository';
import type { LeadInput } from '../src/leads/normalize-lead';

/**
 * upsertLeads beyond what one import request shows: several chunks in one call, and other
 * transactions writing the same emails meanwhile (the fast way rolls back to its savepoint and
 * the ON CONFLICT way stores the leads).
 */
const database = testDb();
const { db } = database;
afterAll(() => database.close());

function leadsOf(tenantId: string) {
  return withSystemScope(db, (trx) =>
    trx
      .selectFrom('crm_leads')
      .select(['id', 'email', 'first_name', 'last_name', 'status', 'source', 'custom_fields'])
      .where('tenant_id', '=', tenantId)
      .orderBy('email')
      .execute(),
  );
}
/** Each event, in order (outboxEvents unpacks the batch rows a bulk write stores). */
async function eventsOf(tenantId: string) {
  return (await outboxEvents(database, tenantId)).map(({ envelope: e }) => ({
    type: e.type,
    id: e.record.id,
    email: e.data.email as string,
  }));
}
/** Resolves once a statement of ours (matching `text`) waits for another transaction's lock. */
function waitingOnLock(text: string) {
  return eventually(async () => {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE ${`%${text}%`}`.execute(
      db,
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });
}
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
const lead = (email: string, fields: Partial<LeadInput> = {}): LeadInput => ({
  email,
  custom_fields: {},
  ...fields,
});

describe('upsertLeads', () => {
  it('stores more than one chunk, merging stored leads and repeated emails, events in order', async () => {
    const tenant = await createTenant(database);
    const email = (n: number) => `c${String(n).padStart(5, '0')}@example.com`;
    const before = await withTenant(db, tenant.id, (trx) =>
      upsertLeads(trx, tenant.id, [
        lead(email(1), { first_name: 'Stored', custom_fields: { keep: 1 } }),
        lead(email(5002), { first_name: 'Stored', phone: '555' }),
      ]),
    );
    const inputs = Array.from({ length: 5003 }, (_, n) => lead(email(n), { last_name: `L${n}` }));
    inputs.push(lead(email(4), { status: 'qualified', custom_fields: { again: true } }));
    const result = await withTenant(db, tenant.id, (trx) =>
      upsertLeads(trx, tenant.id, inputs, { source: 'web_form' }),
    );

    expect(result).toHaveLength(5004);
    expect(result[1]).toEqual({
      id: before[0].id,
      email: email(1),
      status: 'new',
      source: 'api_import',
      created: false,
    });
    expect(result[5002]).toMatchObject({ id: before[1].id, created: false });
    expect(result[4]).toEqual({
      id: expect.any(String),
      email: email(4),
      status: 'qualified',
      source: 'web_form',
      created: true,
    });
    expect(result[5003]).toEqual(result[4]);
    expect(result[5000]).toMatchObject({ created: true, status: 'new', source: 'web_form' });

    const rows = await leadsOf(tenant.id);
    expect(rows).toHaveLength(5003);
    expect(rows.map((r) => r.id)).toEqual(result.slice(0, 5003).map((r) => r.id));
    expect(rows[1]).toMatchObject({
      first_name: 'Stored',
      last_name: 'L1',
      custom_fields: { keep: 1 },
    });
    expect(rows[4]).toMatchObject({
      first_name: null,
      last_name: 'L4',
      status: 'qualified',
      custom_fields: { again: true },
    });
    expect(rows[5002]).toMatchObject({ first_name: 'Stored', last_name: 'L5002' });

    const events = (await eventsOf(tenant.id)).slice(2);
    expect(events).toEqual(
      result.slice(0, 5003).map((r) => ({
        type: r.created ? 'lead.created' : 'lead.updated',
        id: r.id,
        email: r.email,
      })),
    );
  });

  it('new leads get time-ordered ids (UUIDv7), increasing in input order across chunks', async () => {
    const tenant = await createTenant(database);
    const inputs = Array.from({ length: 5001 }, (_, n) => lead(`t${n}@example.com`));
    const startedMs = Date.now();
    const result = await withTenant(db, tenant.id, (trx) => upsertLeads(trx, tenant.id, inputs));
    const ids = result.map((r) => r.id);
    // Version 7, RFC 9562 variant; the first 48 bits are the creation time in ms.
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(startedMs);
    expect(ms).toBeLessThanOrEqual(Date.now());
    // Strictly increasing as compared by Postgres (uuid order = byte order): each new lead
    // lands at the right edge of the primary key.
    const { rows } = await sql<{ ordered: boolean }>`
      SELECT bool_and(prev < id) AS ordered FROM (
        SELECT id, lag(id) OVER (ORDER BY n) AS prev
          FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS t(id, n)) s
       WHERE prev IS NOT NULL`.execute(db);
    expect(rows[0].ordered).toBe(true);
  });

  it('answers an empty list without writing', async () => {
    const tenant = await createTenant(database);
    expect(await withTenant(db, tenant.id, (trx) => upsertLeads(trx, tenant.id, []))).toEqual([]);
    expect(await eventsOf(tenant.id)).toEqual([]);
  });

  it('a lead another transaction inserts meanwhile is updated, not duplicated, with no stray events', async () => {
    const tenant = await createTenant(database);
    const inserted = gate();
    const commit = gate();
    const other = withTenant(db, tenant.id, async (trx) => {
      const { rows } = await sql<{ id: string }>`
        INSERT INTO crm_leads (tenant_id, email, first_name, custom_fields)
        VALUES (${tenant.id}, 'race@example.com', 'Other', '{"from": "other", "kept": 1}')
        RETURNING id`.execute(trx);
      inserted.open();
      await commit.opened;
      return rows[0].id;
    });
    await inserted.opened;
    // Reads before the other commits (the lead is not there yet), then waits at the insert.
    const mine = withTenant(db, tenant.id, (trx) =>
      upsertLeads(trx, tenant.id, [
        lead('race@example.com', { last_name: 'Mine', custom_fields: { from: 'mine' } }),
        lead('fresh@example.com'),
      ]),
    );
    await waitingOnLock('INSERT INTO crm_leads');
    commit.open();
    const otherId = await other;
    const result = await mine;

    expect(result).toEqual([
      {
        id: otherId,
        email: 'race@example.com',
        status: 'new',
        source: 'api_import',
        created: false,
      },
      {
        id: expect.any(String),
        email: 'fresh@example.com',
        status: 'new',
        source: 'api_import',
        created: true,
      },
    ]);
    expect(await leadsOf(tenant.id)).toEqual([
      expect.objectContaining({ email: 'fresh@example.com', id: result[1].id }),
      expect.objectContaining({
        id: otherId,
        first_name: 'Other',
        last_name: 'Mine',
        custom_fields: { from: 'mine', kept: 1 },
      }),
    ]);
    expect(await eventsOf(tenant.id)).toEqual([
      { type: 'lead.updated', id: otherId, email: 'race@example.com' },
      { type: 'lead.created', id: result[1].id, email: 'fresh@example.com' },
    ]);
  });

  it('a stored lead another transaction deletes meanwhile is created again, with no stray events', async () => {
    const tenant = await createTenant(database);
    const [stored] = await withTenant(db, tenant.id, (trx) =>
      upsertLeads(trx, tenant.id, [lead('gone@example.com', { first_name: 'Old' })]),
    );
    const locked = gate();
    const remove = gate();
    const other = withTenant(db, tenant.id, async (trx) => {
      await sql`SELECT id FROM crm_leads WHERE id = ${stored.id} FOR UPDATE`.execute(trx);
      locked.open();
      await remove.opened;
      await sql`DELETE FROM crm_leads WHERE id = ${stored.id}`.execute(trx);
    });
    await locked.opened;
    // Reads the stored lead, then waits at the update until the other transaction deletes it.
    const mine = withTenant(db, tenant.id, (trx) =>
      upsertLeads(trx, tenant.id, [lead('gone@example.com', { last_name: 'New' })]),
    );
    await waitingOnLock('UPDATE crm_leads');
    remove.open();
    await other;
    const [result] = await mine;

    expect(result).toMatchObject({ email: 'gone@example.com', created: true });
    expect(result.id).not.toBe(stored.id);
    expect(await leadsOf(tenant.id)).toEqual([
      expect.objectContaining({ id: result.id, first_name: null, last_name: 'New' }),
    ]);
    expect(await eventsOf(tenant.id)).toEqual([
      { type: 'lead.created', id: stored.id, email: 'gone@example.com' },
      { type: 'lead.created', id: result.id, email: 'gone@example.com' },
    ]);
  });
});
