import { type Trx } from '@crm/shared/db';
import { writeEvents, type EventInput } from '@crm/shared/events';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { DEFAULT_LEAD_SOURCE, DEFAULT_LEAD_STATUS, type LeadInput } from './normalize-lead';

export interface StoredLead {
  id: string;
  email: string;
  status: string;
  source: string;
  created: boolean;
}

interface ExistingLead {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  source: string;
  custom_fields: Record<string, unknown>;
}

/**
 * A merged lead with every column's value. `id` is known on the fast way (chosen here for a new
 * lead) and undefined on the ON CONFLICT way.
 */
type LeadRow = Omit<ExistingLead, 'id'> & { id: string | undefined };

/** Rows per statement: arrays of this size keep each statement well under a few MB. */
const CHUNK = 5000;

/**
 * The merge rule (documented in docs/leads-and-deals.md): a field given in the input replaces
 * the stored one, a field left out keeps it, and custom_fields are merged key by key (input
 * wins). Rows with the same email in one request merge the same way, in request order.
 */
function merge(base: ExistingLead | LeadInput | undefined, next: LeadInput): LeadInput {
  if (!base) return next;
  return {
    email: next.email,
    first_name: next.first_name !== undefined ? next.first_name : base.first_name,
    last_name: next.last_name !== undefined ? next.last_name : base.last_name,
    phone: next.phone !== undefined ? next.phone : base.phone,
    status: next.status ?? base.status,
    source: next.source ?? base.source,
    custom_fields: { ...base.custom_fields, ...next.custom_fields },
  };
}

function toRow(lead: LeadInput, defaults: { source?: string }, id?: string): LeadRow {
  return {
    id,
    email: lead.email,
    first_name: lead.first_name ?? null,
    last_name: lead.last_name ?? null,
    phone: lead.phone ?? null,
    status: lead.status ?? DEFAULT_LEAD_STATUS,
    source: lead.source ?? defaults.source ?? DEFAULT_LEAD_SOURCE,
    custom_fields: lead.custom_fields,
  };
}

/** The stored leads of these emails (sent as one JSON parameter), by email. */
async function existingLeads(
  trx: Trx,
  tenantId: string,
  leads: LeadInput[],
): Promise<Map<string, ExistingLead>> {
  const emails = leads.map((l) => l.email);
  const rows = await trx
    .selectFrom('crm_leads')
    .select([
      'id',
      'email',
      'first_name',
      'last_name',
      'phone',
      'status',
      'source',
      'custom_fields',
    ])
    .where('tenant_id', '=', tenantId)
    .where(
      'email',
      '=',
      sql<string>`ANY(ARRAY(SELECT json_array_elements_text(${JSON.stringify(emails)}::json)))`,
    )
    .execute();
  return new Map(rows.map((row) => [row.email, row as ExistingLead]));
}

function eventsOf(tenantId: string, leads: StoredLead[]): EventInput[] {
  return leads.map((lead) => ({
    type: lead.created ? 'lead.created' : 'lead.updated',
    tenant_id: tenantId,
    record: { module: 'leads', id: lead.id },
    data: { email: lead.email, status: lead.status, source: lead.source },
  }));
}

/**
 * Rows as one JSON parameter of columns (`{"email": [...], ...}`), expanded by Postgres into the
 * rows `r(id, email, first_name, last_name, phone, status, source, custom_fields)`, all text but
 * custom_fields (jsonb). Parsing one array per column is cheaper than an object per row (no
 * keys to sort per row), and one parameter is cheaper than the driver encoding eight arrays.
 */
function leadRows(rows: LeadRow[]) {
  const columns = JSON.stringify({
    id: rows.map((r) => r.id ?? null),
    email: rows.map((r) => r.email),
    first_name: rows.map((r) => r.first_name),
    last_name: rows.map((r) => r.last_name),
    phone: rows.map((r) => r.phone),
    status: rows.map((r) => r.status),
    source: rows.map((r) => r.source),
    custom_fields: rows.map((r) => r.custom_fields),
  });
  return sql`(SELECT ${columns}::jsonb AS c) AS p, ROWS FROM (
    jsonb_array_elements_text(p.c->'id'),
    jsonb_array_elements_text(p.c->'email'),
    jsonb_array_elements_text(p.c->'first_name'),
    jsonb_array_elements_text(p.c->'last_name'),
    jsonb_array_elements_text(p.c->'phone'),
    jsonb_array_elements_text(p.c->'status'),
    jsonb_array_elements_text(p.c->'source'),
    jsonb_array_elements(p.c->'custom_fields')
  ) AS r(id, email, first_name, last_name, phone, status, source, custom_fields)`;
}

/** A stored lead changed under us (deleted, or its email changed): the fast way does not apply. */
class LeadsRaced extends Error {}

/**
 * The fast way, right whenever no other transaction writes the same emails meanwhile: new
 * leads get their ids here and go in with a plain INSERT, stored ones are updated by id, so
 * Postgres makes no speculative inserts and sends nothing back, and the events are known up
 * front. Each statement is queued on the transaction's connection as soon as it is built, so
 * JavaScript prepares the next one while Postgres runs the previous one.
 *
 * All inside a savepoint: a concurrent insert of one of the emails (unique violation) or a
 * stored lead that was deleted or changed its email (fewer rows updated) rolls everything back
 * to it and returns undefined, and the caller stores the leads with upsertWithConflicts.
 */
async function insertOrUpdate(
  trx: Trx,
  tenantId: string,
  leads: LeadInput[],
  defaults: { source?: string },
): Promise<Map<string, StoredLead> | undefined> {
  // The first chunk is half size: Postgres starts writing sooner, and every later chunk is
  // read and built while it writes the one before.
  const chunks = [leads.slice(0, CHUNK / 2)];
  for (let start = CHUNK / 2; start < leads.length; start += CHUNK) {
    chunks.push(leads.slice(start, start + CHUNK));
  }
  const failures: unknown[] = [];
  const pending: Array<Promise<unknown>> = [];
  // Each statement's failure is recorded at once (none goes unhandled while later ones are
  // built); the first is the cause, the statements after it only find the transaction aborted.
  const queue = <T>(statement: Promise<T>): Promise<T | undefined> => {
    const settled = statement.catch((err: unknown) => void failures.push(err));
    pending.push(settled);
    return settled;
  };
  // Lets the statements queued so far reach the connection before more synchronous work.
  const yieldToIo = () => new Promise((resolve) => setImmediate(resolve));

  await sql`SAVEPOINT upsert_leads`.execute(trx);
  const written = new Map<string, StoredLead>();
  let nextExisting = queue(existingLeads(trx, tenantId, chunks[0]));
  for (let c = 0; c < chunks.length; c++) {
    const existing = await nextExisting;
    if (!existing) break;
    const fresh: LeadRow[] = [];
    const changed: LeadRow[] = [];
    const stored = chunks[c].map((input): StoredLead => {
      const before = existing.get(input.email);
      const id = before?.id ?? randomUUID();
      const row = toRow(merge(before, input), defaults, id);
      (before ? changed : fresh).push(row);
      return { id, email: row.email, status: row.status, source: row.source, created: !before };
    });
    for (const lead of stored) written.set(lead.email, lead);
    if (fresh.length > 0) {
      queue(
        sql`
        INSERT INTO crm_leads (id, tenant_id, email, first_name, last_name, phone, status, source, custom_fields)
        SELECT r.id::uuid, ${tenantId}::uuid, r.email, r.first_name, r.last_name, r.phone, r.status, r.source, r.custom_fields
          FROM ${leadRows(fresh)}`.execute(trx),
      );
    }
    if (changed.length > 0) {
      queue(
        sql`
        UPDATE crm_leads AS l SET
          first_name = r.first_name,
          last_name = r.last_name,
          phone = r.phone,
          status = r.status,
          source = r.source,
          custom_fields = r.custom_fields,
          updated_at = now()
          FROM ${leadRows(changed)}
         WHERE l.tenant_id = ${tenantId}::uuid AND l.id = r.id::uuid AND l.email = r.email`
          .execute(trx)
          .then(({ numAffectedRows }) => {
            if (Number(numAffectedRows) !== changed.length) throw new LeadsRaced();
          }),
      );
    }
    // Queued in this order: this chunk's leads, the next chunk's read, this chunk's events. So
    // the events are built while Postgres writes the leads, and the next chunk is built while
    // it writes the events.
    if (c + 1 < chunks.length) nextExisting = queue(existingLeads(trx, tenantId, chunks[c + 1]));
    await yieldToIo();
    queue(writeEvents(trx, eventsOf(tenantId, stored)));
    await yieldToIo();
  }
  await Promise.all(pending);
  const [failure] = failures;
  if (failure !== undefined) {
    if (!(failure instanceof LeadsRaced) && (failure as { code?: unknown }).code !== '23505') {
      throw failure;
    }
    await sql`ROLLBACK TO SAVEPOINT upsert_leads`.execute(trx);
    return undefined;
  }
  await sql`RELEASE SAVEPOINT upsert_leads`.execute(trx);
  return written;
}

/**
 * The way that holds whatever other transactions do: per chunk one INSERT ... ON CONFLICT,
 * with the ids and outcomes Postgres reports, then the events.
 */
async function upsertWithConflicts(
  trx: Trx,
  tenantId: string,
  leads: LeadInput[],
  defaults: { source?: string },
): Promise<Map<string, StoredLead>> {
  const written = new Map<string, StoredLead>();
  for (let start = 0; start < leads.length; start += CHUNK) {
    const chunk = leads.slice(start, start + CHUNK);
    const existing = await existingLeads(trx, tenantId, chunk);
    const rows = chunk.map((input) => toRow(merge(existing.get(input.email), input), defaults));
    const { rows: stored } = await sql<StoredLead>`
      INSERT INTO crm_leads (tenant_id, email, first_name, last_name, phone, status, source, custom_fields)
      SELECT ${tenantId}::uuid, r.email, r.first_name, r.last_name, r.phone, r.status, r.source, r.custom_fields
        FROM ${leadRows(rows)}
      ON CONFLICT (tenant_id, email) DO UPDATE SET
        first_name = EXCLUDED.first_name,
        last_name = EXCLUDED.last_name,
        phone = EXCLUDED.phone,
        status = EXCLUDED.status,
        source = EXCLUDED.source,
        custom_fields = EXCLUDED.custom_fields,
        updated_at = now()
      RETURNING id, email, status, source, (xmax = 0) AS created`.execute(trx);
    for (const lead of stored) written.set(lead.email, lead);
    await writeEvents(trx, eventsOf(tenantId, stored));
  }
  return written;
}

/**
 * Creates or updates leads by email (unique per tenant, case-insensitive), set-based, in the
 * caller's tenant transaction: per chunk of 5,000 one SELECT of the stored rows, one INSERT of
 * the new leads and one UPDATE of the stored ones (or, when another transaction raced us for
 * the same emails, one INSERT ... ON CONFLICT), and one outbox INSERT of their `lead.created` /
 * `lead.updated` events. Returns the stored lead for every input, in input order.
 */
export async function upsertLeads(
  trx: Trx,
  tenantId: string,
  inputs: LeadInput[],
  defaults: { source?: string } = {},
): Promise<StoredLead[]> {
  const byEmail = new Map<string, LeadInput>();
  for (const input of inputs) byEmail.set(input.email, merge(byEmail.get(input.email), input));
  const unique = [...byEmail.values()];
  if (unique.length === 0) return [];
  const stored =
    (await insertOrUpdate(trx, tenantId, unique, defaults)) ??
    (await upsertWithConflicts(trx, tenantId, unique, defaults));
  return inputs.map((input) => stored.get(input.email) as StoredLead);
}
