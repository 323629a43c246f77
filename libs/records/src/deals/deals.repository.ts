import type { Database, Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  sliceByKeyset,
  type CursorBinding,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Kysely } from 'kysely';
import type { DealChange, DealFilters, DealInput } from './deals.schema';

type Db = Kysely<Database> | Trx;

/** A deal as the API shows it. */
export const DEAL_COLUMNS = [
  'id',
  'title',
  'value',
  'currency',
  'stage',
  'assigned_to',
  'lead_id',
  'contact_id',
  'expected_close_date',
  'custom_fields',
  'created_by',
  'created_at',
  'updated_at',
] as const;

function jsonFields<T extends { custom_fields?: Record<string, unknown> }>(input: T) {
  const { custom_fields, ...rest } = input;
  return {
    ...rest,
    ...(custom_fields !== undefined && { custom_fields: JSON.stringify(custom_fields) }),
  };
}

/** Under RLS another tenant's ids look absent, so these say "inside this tenant". */
export async function isTenantMember(db: Db, tenantId: string, userId: string): Promise<boolean> {
  const member = await db
    .selectFrom('tenant_users')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return member !== undefined;
}

export async function leadExists(db: Db, tenantId: string, leadId: string): Promise<boolean> {
  const lead = await db
    .selectFrom('crm_leads')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', leadId)
    .executeTakeFirst();
  return lead !== undefined;
}

export async function contactExists(db: Db, tenantId: string, contactId: string): Promise<boolean> {
  const contact = await db
    .selectFrom('crm_contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', contactId)
    .executeTakeFirst();
  return contact !== undefined;
}

export async function insertDeal(db: Db, tenantId: string, userId: string, input: DealInput) {
  return db
    .insertInto('crm_deals')
    .values({ ...jsonFields(input), tenant_id: tenantId, created_by: userId })
    .returning([...DEAL_COLUMNS])
    .executeTakeFirstOrThrow();
}

export async function findDeal(db: Db, tenantId: string, id: string) {
  return db
    .selectFrom('crm_deals')
    .select([...DEAL_COLUMNS])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The tenant's deals that match every filter given, before the columns and the order: the one
 * place the deal list and the deal export filter them.
 */
export function filteredDeals(db: Db, tenantId: string, filters: DealFilters) {
  let query = db.selectFrom('crm_deals').where('crm_deals.tenant_id', '=', tenantId);
  if (filters.stage) query = query.where('crm_deals.stage', '=', filters.stage);
  if (filters.assigned_to) query = query.where('crm_deals.assigned_to', '=', filters.assigned_to);
  if (filters.lead_id) query = query.where('crm_deals.lead_id', '=', filters.lead_id);
  return query;
}

/**
 * The deal list's one order, newest first, on crm_deals_by_created_at `(tenant_id, created_at,
 * id)` unfiltered, or on the stage's or assignee's `(tenant_id, <filter>, created_at, id)`
 * (migration 0023) filtered.
 */
const DEAL_SORT_KEYS = {
  created_at: { expression: sql`crm_deals.created_at`, type: 'timestamptz' },
} satisfies Record<string, SortKey>;

/**
 * The tenant's newest `limit` deals (filtered by stage, assignee and lead), or those after
 * `cursor`, and the cursor after the last one (null when there are no more): the list keeps its
 * `{ deals }` with no page or count, and pages by keyset (the shared helper; `binding` signs the
 * cursors).
 */
export async function listDeals(
  db: Db,
  tenantId: string,
  query: DealFilters & { limit: number; cursor?: string },
  binding: Pick<CursorBinding, 'secret'>,
) {
  const filters = { stage: query.stage, assigned_to: query.assigned_to, lead_id: query.lead_id };
  return sliceByKeyset(
    filteredDeals(db, tenantId, filters).select([...DEAL_COLUMNS]),
    { limit: query.limit, sortBy: 'created_at', sortOrder: 'desc', cursor: query.cursor },
    {
      sortKeys: DEAL_SORT_KEYS,
      tiebreak: 'crm_deals.id',
      binding: listCursorBinding(binding.secret, 'crm_deals', tenantId, filters),
    },
  );
}

/** The deal's stage, its row locked until the transaction ends (a change compares against it). */
export async function lockDealStage(trx: Trx, tenantId: string, id: string) {
  return trx
    .selectFrom('crm_deals')
    .select(['stage'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateDeal(db: Db, tenantId: string, id: string, change: DealChange) {
  return db
    .updateTable('crm_deals')
    .set({ ...jsonFields(change), updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning([...DEAL_COLUMNS])
    .executeTakeFirstOrThrow();
}

/** True when a row was deleted. */
export async function deleteDeal(db: Db, tenantId: string, id: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('crm_deals')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** A deal written by a bulk writer (a migration): no author, references already resolved. */
export type DealRow = Omit<DealInput, 'assigned_to'> & {
  lead_id?: string | null;
  contact_id?: string | null;
};

const ROW_COLUMNS = `title text, value numeric, currency text, stage text, lead_id uuid,
  contact_id uuid, expected_close_date date, custom_fields jsonb`;

const rowJson = (row: DealRow) => ({
  title: row.title,
  value: row.value,
  currency: row.currency,
  stage: row.stage,
  lead_id: row.lead_id ?? null,
  contact_id: row.contact_id ?? null,
  expected_close_date: row.expected_close_date ?? null,
  custom_fields: row.custom_fields,
});

/** Inserts deals in one statement; returns them in input order. */
export async function insertDeals(trx: Trx, tenantId: string, rows: readonly DealRow[]) {
  if (rows.length === 0) return [];
  const { rows: inserted } = await sql<
    { ord: number } & Record<(typeof DEAL_COLUMNS)[number], unknown>
  >`
    INSERT INTO crm_deals (tenant_id, title, value, currency, stage, lead_id, contact_id,
      expected_close_date, custom_fields)
    SELECT ${tenantId}::uuid, d.title, d.value, d.currency, d.stage, d.lead_id, d.contact_id,
      d.expected_close_date, d.custom_fields
    FROM jsonb_to_recordset(${JSON.stringify(rows.map((row, ord) => ({ ...rowJson(row), ord })))}::jsonb)
      AS d(${sql.raw(ROW_COLUMNS)}, ord int)
    ORDER BY d.ord
    RETURNING id, title, value::text AS value, currency, stage`.execute(trx);
  return inserted as unknown as Array<{
    id: string;
    title: string;
    value: string;
    currency: string;
    stage: string;
  }>;
}

/**
 * Overwrites deals by id in one statement (every field given); returns the ids that still
 * existed, with their new summary.
 */
export async function updateDealsById(
  trx: Trx,
  tenantId: string,
  rows: ReadonlyArray<{ id: string; deal: DealRow }>,
) {
  if (rows.length === 0) return [];
  const payload = rows.map(({ id, deal }) => ({ id, ...rowJson(deal) }));
  const { rows: updated } = await sql<{
    id: string;
    title: string;
    value: string;
    currency: string;
    stage: string;
  }>`
    UPDATE crm_deals AS t SET title = d.title, value = d.value, currency = d.currency,
      stage = d.stage, lead_id = d.lead_id, contact_id = d.contact_id,
      expected_close_date = d.expected_close_date, custom_fields = d.custom_fields,
      updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
      AS d(id uuid, ${sql.raw(ROW_COLUMNS)})
    WHERE t.tenant_id = ${tenantId} AND t.id = d.id
    RETURNING t.id, t.title, t.value::text AS value, t.currency, t.stage`.execute(trx);
  return updated;
}
