import { type LeadsTable, type Trx } from '@crm/shared/db';
import { writeEvents } from '@crm/shared/events';
import {
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import { v7 as timeOrderedUuid } from 'uuid';
import { matchesSearch, searchCandidates } from '../search-rows.repository';
import { leadListSource, whereLeadFilters, type LeadFilters } from './lead-filters';
import { leadEvents } from './leads.events';
import { DEFAULT_LEAD_SOURCE, DEFAULT_LEAD_STATUS, type LeadInput } from './normalize-lead';

/**
 * The lead columns an upsert writes, in the order every statement below lists them: all text
 * but custom_fields (jsonb). The one list of them; the SQL is built from it.
 */
const WRITTEN = [
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'source',
  'custom_fields',
] as const;
const JSONB_COLUMNS = new Set<string>(['custom_fields']);
/** Every column a lead is read with (the lead list, GET /api/crm/leads/:id). */
export const LEAD_COLUMNS = ['id', ...WRITTEN, 'created_at', 'updated_at'] as const;
/** One of LEAD_COLUMNS: what a list naming lead columns elsewhere is typed against. */
export type LeadColumn = (typeof LEAD_COLUMNS)[number];
export type Lead = Pick<Selectable<LeadsTable>, LeadColumn>;

export interface StoredLead {
  id: string;
  email: string;
  status: string;
  source: string;
  created: boolean;
}

/**
 * The id and every written column: what the merge reads of a stored lead, and the rows a
 * statement expands from its JSON parameter.
 */
const ROW_COLUMNS = ['id', ...WRITTEN] as const;
type ExistingLead = Pick<Selectable<LeadsTable>, (typeof ROW_COLUMNS)[number]>;
/** SQL lists of them: `email, first_name, ...`, `r.email, r.first_name, ...`, and so on. */
const COLUMN_LIST = sql.raw(WRITTEN.join(', '));
const R_COLUMN_LIST = sql.raw(WRITTEN.map((c) => `r.${c}`).join(', '));
const ROW_ALIASES = sql.raw(ROW_COLUMNS.join(', '));
const ROW_SOURCES = sql.raw(
  ROW_COLUMNS.map((c) =>
    JSONB_COLUMNS.has(c)
      ? `jsonb_array_elements(p.c->'${c}')`
      : `jsonb_array_elements_text(p.c->'${c}')`,
  ).join(',\n    '),
);
/** An update changes every written column but the key (email), and updated_at. */
const UPDATED = WRITTEN.filter((c) => c !== 'email');
const SET_FROM_ROWS = sql.raw(UPDATED.map((c) => `${c} = r.${c}`).join(',\n          '));
const SET_FROM_EXCLUDED = sql.raw(UPDATED.map((c) => `${c} = EXCLUDED.${c}`).join(',\n        '));

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
    .select(ROW_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where(
      'email',
      '=',
      sql<string>`ANY(ARRAY(SELECT json_array_elements_text(${JSON.stringify(emails)}::json)))`,
    )
    .execute();
  return new Map(rows.map((row) => [row.email, row]));
}

/**
 * Rows as one JSON parameter of columns (`{"id": [...], "email": [...], ...}`), expanded by
 * Postgres into the rows `r(id, email, first_name, ...)` of ROW_COLUMNS. Parsing one array per
 * column is cheaper than an object per row (no keys to sort per row), and one parameter is
 * cheaper than the driver encoding eight arrays.
 */
function leadRows(rows: LeadRow[]) {
  const columns: Record<string, unknown[]> = {};
  for (const column of ROW_COLUMNS) columns[column] = rows.map((r) => r[column] ?? null);
  return sql`(SELECT ${JSON.stringify(columns)}::jsonb AS c) AS p, ROWS FROM (
    ${ROW_SOURCES}
  ) AS r(${ROW_ALIASES})`;
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
      // Time-ordered (UUIDv7): new ids land at the right edge of the primary key and of the
      // created-at index instead of on random pages (measured: 10,000 inserts 147 -> 119 ms
      // in Postgres). The race way below keeps Postgres's random default; it is rare.
      const id = before?.id ?? timeOrderedUuid();
      const row = toRow(merge(before, input), defaults, id);
      (before ? changed : fresh).push(row);
      return { id, email: row.email, status: row.status, source: row.source, created: !before };
    });
    for (const lead of stored) written.set(lead.email, lead);
    if (fresh.length > 0) {
      queue(
        sql`
        INSERT INTO crm_leads (id, tenant_id, ${COLUMN_LIST})
        SELECT r.id::uuid, ${tenantId}::uuid, ${R_COLUMN_LIST}
          FROM ${leadRows(fresh)}`.execute(trx),
      );
    }
    if (changed.length > 0) {
      queue(
        sql`
        UPDATE crm_leads AS l SET
          ${SET_FROM_ROWS},
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
    queue(writeEvents(trx, leadEvents(tenantId, stored)));
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
      INSERT INTO crm_leads (tenant_id, ${COLUMN_LIST})
      SELECT ${tenantId}::uuid, ${R_COLUMN_LIST}
        FROM ${leadRows(rows)}
      ON CONFLICT (tenant_id, email) DO UPDATE SET
        ${SET_FROM_EXCLUDED},
        updated_at = now()
      RETURNING id, email, status, source, (xmax = 0) AS created`.execute(trx);
    for (const lead of stored) written.set(lead.email, lead);
    await writeEvents(trx, leadEvents(tenantId, stored));
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

/** A stored lead as a writer by id merges into it: its id and every written column. */
export type LeadRecord = ExistingLead;

/** A lead was deleted between being read and being updated. */
export class LeadChangedMeanwhile extends Error {
  constructor() {
    super('a lead changed between being read and being updated');
  }
}

/** Every written column, the email included: an update by id may move a lead to a new email. */
const SET_ALL_FROM_ROWS = sql.raw(WRITTEN.map((c) => `${c} = r.${c}`).join(',\n          '));

/**
 * The tenant's leads with any of these ids or emails (each list one array parameter), in one
 * query: what a writer by id reads before deciding which lead each input updates.
 */
export async function findLeadsByIdsOrEmails(
  trx: Trx,
  tenantId: string,
  ids: readonly string[],
  emails: readonly string[],
): Promise<LeadRecord[]> {
  if (ids.length === 0 && emails.length === 0) return [];
  return trx
    .selectFrom('crm_leads')
    .select(ROW_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where((eb) =>
      eb.or([
        eb('id', '=', sql<string>`ANY(${[...new Set(ids)]}::uuid[])`),
        eb('email', '=', sql<string>`ANY(${[...new Set(emails)]}::text[])`),
      ]),
    )
    .execute();
}

/**
 * Writes leads whose identity the caller decided (migrate: by the source id's mapping), in the
 * caller's tenant transaction: an input with a `base` (a lead read with findLeadsByIdsOrEmails)
 * updates that lead by id, email included, with the merge rule; one without inserts a new lead.
 * One INSERT, one UPDATE and one outbox INSERT (`lead.created` / `lead.updated`) for the whole
 * batch. The caller makes sure no two inputs and no other lead share an email; a lead another
 * transaction inserted with one of the emails meanwhile fails the INSERT or UPDATE with a unique
 * violation (23505), and a base deleted meanwhile throws LeadChangedMeanwhile, so the caller can read again and retry. Returns the stored leads in
 * input order.
 */
export async function writeLeadsById(
  trx: Trx,
  tenantId: string,
  writes: ReadonlyArray<{ lead: LeadInput; base?: LeadRecord }>,
): Promise<StoredLead[]> {
  const fresh: LeadRow[] = [];
  const changed: LeadRow[] = [];
  const stored = writes.map(({ lead, base }): StoredLead => {
    const row = toRow(merge(base, lead), {}, base?.id ?? timeOrderedUuid());
    (base ? changed : fresh).push(row);
    const id = row.id as string;
    return { id, email: row.email, status: row.status, source: row.source, created: !base };
  });
  if (changed.length > 0) {
    const { numAffectedRows } = await sql`
      UPDATE crm_leads AS l SET
        ${SET_ALL_FROM_ROWS},
        updated_at = now()
        FROM ${leadRows(changed)}
       WHERE l.tenant_id = ${tenantId}::uuid AND l.id = r.id::uuid`.execute(trx);
    if (Number(numAffectedRows) !== changed.length) throw new LeadChangedMeanwhile();
  }
  if (fresh.length > 0) {
    await sql`
      INSERT INTO crm_leads (id, tenant_id, ${COLUMN_LIST})
      SELECT r.id::uuid, ${tenantId}::uuid, ${R_COLUMN_LIST}
        FROM ${leadRows(fresh)}`.execute(trx);
  }
  if (stored.length > 0) await writeEvents(trx, leadEvents(tenantId, stored));
  return stored;
}

/**
 * A stored column value kept unless it is empty (NULL or ''), in which case the given one fills
 * it (a NULL given one keeps the stored value).
 */
const fillBlank = (column: 'first_name' | 'last_name' | 'phone') =>
  sql`COALESCE(NULLIF(l.${sql.ref(column)}, ''), EXCLUDED.${sql.ref(column)}, l.${sql.ref(column)})`;
/** The stored custom fields with the given ones added where a key is missing, null or ''. */
const FILLED_CUSTOM_FIELDS = sql`CASE WHEN jsonb_typeof(l.custom_fields) = 'object'
  THEN EXCLUDED.custom_fields || (
    SELECT COALESCE(jsonb_object_agg(key, value), '{}'::jsonb)
      FROM jsonb_each(l.custom_fields)
     WHERE value NOT IN ('null'::jsonb, '""'::jsonb))
  ELSE l.custom_fields END`;

/**
 * Stores a lead given by someone who is not the tenant (an anonymous web form), in the caller's
 * tenant transaction: a new email becomes a lead with `source`; an existing lead only gains
 * what it lacks (empty columns and custom field keys are filled, nothing non-empty is
 * replaced, status and source stay). Writes `lead.created`, or `lead.updated` only when a
 * blank was filled. One INSERT ... ON CONFLICT, so a concurrent submission of the same email
 * waits for the row instead of failing.
 */
export async function upsertLeadFillingBlanks(
  trx: Trx,
  tenantId: string,
  lead: LeadInput,
  source: string,
): Promise<StoredLead & { changed: boolean }> {
  const row = toRow(lead, { source }, timeOrderedUuid());
  const filled = [
    fillBlank('first_name'),
    fillBlank('last_name'),
    fillBlank('phone'),
    FILLED_CUSTOM_FIELDS,
  ];
  // lower() again in SQL: the column's CHECK is Postgres's idea of lower case.
  const { rows } = await sql<StoredLead>`
    INSERT INTO crm_leads AS l (id, tenant_id, ${COLUMN_LIST})
    VALUES (${row.id}, ${tenantId}, lower(${row.email}), ${row.first_name}, ${row.last_name},
            ${row.phone}, ${row.status}, ${row.source}, ${JSON.stringify(row.custom_fields)})
    ON CONFLICT (tenant_id, email) DO UPDATE SET
      (first_name, last_name, phone, custom_fields) = (${sql.join(filled)}),
      updated_at = now()
    WHERE (${sql.join(filled)}) IS DISTINCT FROM (l.first_name, l.last_name, l.phone, l.custom_fields)
    RETURNING id, email, status, source, (xmax = 0) AS created`.execute(trx);
  const written = rows[0];
  if (written) {
    await writeEvents(trx, leadEvents(tenantId, [written]));
    return { ...written, changed: true };
  }
  // Nothing to fill: the row was left as it is (and locked); this statement sees it.
  const kept = await trx
    .selectFrom('crm_leads')
    .select(['id', 'email', 'status', 'source'])
    .where('tenant_id', '=', tenantId)
    .where('email', '=', sql<string>`lower(${row.email})`)
    .executeTakeFirstOrThrow();
  return { ...kept, created: false, changed: false };
}

/** One lead of the tenant by id, every column; undefined when there is none (or not a uuid). */
export async function findLead(trx: Trx, tenantId: string, id: string): Promise<Lead | undefined> {
  return trx
    .selectFrom('crm_leads')
    .select(LEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** One lead of the tenant by email (stored lower-cased, so pass it lower-cased). */
export async function findLeadByEmail(
  trx: Trx,
  tenantId: string,
  email: string,
): Promise<Lead | undefined> {
  return trx
    .selectFrom('crm_leads')
    .select(LEAD_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('email', '=', email)
    .executeTakeFirst();
}

/**
 * What the lead list may be sorted by, each the column its index holds (migration 0018:
 * `(tenant_id, <key>, id)`, or the unique `(tenant_id, email)`); all NOT NULL, as a keyset
 * comparison needs.
 */
export const LEAD_SORT_KEYS = {
  created_at: { expression: sql`crm_leads.created_at`, type: 'timestamptz' },
  email: { expression: sql`crm_leads.email`, type: 'text' },
  status: { expression: sql`crm_leads.status`, type: 'text' },
  source: { expression: sql`crm_leads.source`, type: 'text' },
} satisfies Record<string, SortKey>;
export type LeadSortKey = keyof typeof LEAD_SORT_KEYS;

/** The list's query before paging: the tenant's leads with the filters applied. */
export function leadListQuery(
  trx: Trx,
  tenantId: string,
  filters: LeadFilters = {},
  searching = Boolean(filters.q),
) {
  const query = leadListSource(trx, searching)
    .select(LEAD_COLUMNS)
    .where('crm_leads.tenant_id', '=', tenantId);
  return whereLeadFilters(query, filters);
}

/**
 * A page of the tenant's leads, filtered (status, source as normalised on import, q), by page
 * or by cursor (the shared keyset helper; `binding` signs and checks the cursors).
 */
export async function listLeads(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<LeadSortKey>,
  filters: LeadFilters,
  binding: Omit<CursorBinding, 'filters' | 'scope'>,
): Promise<CursorPage<Lead>> {
  const { q, ...others } = filters;
  return paginateByKeyset(trx, leadListQuery(trx, tenantId, others, Boolean(q)), page, {
    search: q ? matchesSearch('crm_leads', q) : undefined,
    searchIndex: q ? searchCandidates('crm_leads', q) : undefined,
    sortKeys: LEAD_SORT_KEYS,
    tiebreak: 'crm_leads.id',
    binding: { ...binding, scope: tenantId, filters: { ...filters } },
    filtered: Object.values(filters).some((value) => value !== undefined && value !== ''),
  });
}

/** A change to one lead (PATCH): a key given replaces the stored value; custom_fields merge. */
export interface LeadChange {
  email?: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  status?: string;
  source?: string;
  custom_fields?: Record<string, unknown>;
}

/** Postgres's unique violation: another lead of the tenant has this email. */
export const isDuplicateEmail = (err: unknown) => (err as { code?: unknown }).code === '23505';

/**
 * Inserts one lead (POST /api/crm/leads); undefined when the tenant already has a lead with
 * this email (nothing is written then).
 */
export async function insertLead(
  trx: Trx,
  tenantId: string,
  lead: LeadInput,
): Promise<Lead | undefined> {
  const row = toRow(lead, {}, timeOrderedUuid());
  return trx
    .insertInto('crm_leads')
    .values({
      id: row.id as string,
      tenant_id: tenantId,
      email: row.email,
      first_name: row.first_name,
      last_name: row.last_name,
      phone: row.phone,
      status: row.status,
      source: row.source,
      custom_fields: JSON.stringify(row.custom_fields),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'email']).doNothing())
    .returning(LEAD_COLUMNS)
    .executeTakeFirst();
}

/**
 * Applies `change` to one lead of the tenant; undefined when there is none. A new email that
 * another lead of the tenant has fails with a unique violation (isDuplicateEmail).
 */
export async function updateLead(
  trx: Trx,
  tenantId: string,
  id: string,
  change: LeadChange,
): Promise<Lead | undefined> {
  const { custom_fields: customFields, ...columns } = change;
  return trx
    .updateTable('crm_leads')
    .set({
      ...columns,
      ...(customFields
        ? { custom_fields: sql`crm_leads.custom_fields || ${JSON.stringify(customFields)}::jsonb` }
        : {}),
      updated_at: sql`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(LEAD_COLUMNS)
    .executeTakeFirst();
}

/** Deletes one lead of the tenant; the deleted lead, or undefined when there is none. */
export async function deleteLead(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<Lead | undefined> {
  return trx
    .deleteFrom('crm_leads')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(LEAD_COLUMNS)
    .executeTakeFirst();
}
