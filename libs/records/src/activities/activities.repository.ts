import type { ActivitiesTable, Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import type { ActivityInput } from './activities.schema';

/** An activity written in bulk, with its links resolved to record ids. */
export type ActivityRow = ActivityInput & {
  lead_id?: string | null;
  contact_id?: string | null;
  deal_id?: string | null;
};

export interface StoredActivity {
  id: string;
  type: string;
  occurred_at: string;
}

const ROW_COLUMNS = `type text, subject text, body text, occurred_at timestamptz, lead_id uuid,
  contact_id uuid, deal_id uuid, custom_fields jsonb`;

const rowJson = (row: ActivityRow) => ({
  type: row.type,
  subject: row.subject ?? null,
  body: row.body ?? null,
  occurred_at: row.occurred_at ?? null,
  lead_id: row.lead_id ?? null,
  contact_id: row.contact_id ?? null,
  deal_id: row.deal_id ?? null,
  custom_fields: row.custom_fields,
});

/** Inserts activities in one statement; returns them in input order. */
export async function insertActivities(
  trx: Trx,
  tenantId: string,
  rows: readonly ActivityRow[],
): Promise<StoredActivity[]> {
  if (rows.length === 0) return [];
  const payload = rows.map((row, ord) => ({ ...rowJson(row), ord }));
  const { rows: inserted } = await sql<StoredActivity>`
    INSERT INTO crm_activities (tenant_id, type, subject, body, occurred_at, lead_id, contact_id,
      deal_id, custom_fields)
    SELECT ${tenantId}::uuid, a.type, a.subject, a.body, coalesce(a.occurred_at, now()), a.lead_id,
      a.contact_id, a.deal_id, a.custom_fields
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS a(${sql.raw(ROW_COLUMNS)}, ord int)
    ORDER BY a.ord
    RETURNING id, type, occurred_at`.execute(trx);
  return inserted;
}

/** Overwrites activities by id in one statement; returns those that still existed. */
export async function updateActivitiesById(
  trx: Trx,
  tenantId: string,
  rows: ReadonlyArray<{ id: string; row: ActivityRow }>,
): Promise<StoredActivity[]> {
  if (rows.length === 0) return [];
  const payload = rows.map(({ id, row }) => ({ id, ...rowJson(row) }));
  const { rows: updated } = await sql<StoredActivity>`
    UPDATE crm_activities AS t SET type = a.type, subject = a.subject, body = a.body,
      occurred_at = coalesce(a.occurred_at, t.occurred_at), lead_id = a.lead_id,
      contact_id = a.contact_id, deal_id = a.deal_id, custom_fields = a.custom_fields,
      updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS a(id uuid, ${sql.raw(ROW_COLUMNS)})
    WHERE t.tenant_id = ${tenantId} AND t.id = a.id
    RETURNING t.id, t.type, t.occurred_at`.execute(trx);
  return updated;
}

/** Every column an activity is read with. */
export const ACTIVITY_COLUMNS = [
  'id',
  'type',
  'subject',
  'body',
  'occurred_at',
  'lead_id',
  'contact_id',
  'deal_id',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;
export type ActivityColumn = (typeof ACTIVITY_COLUMNS)[number];
export type Activity = Pick<Selectable<ActivitiesTable>, (typeof ACTIVITY_COLUMNS)[number]>;

/** The list's filters: the lead, contact or deal an activity is about (all given must match). */
export interface ActivityFilters {
  lead_id?: string;
  contact_id?: string;
  deal_id?: string;
}

export async function findActivity(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<Activity | undefined> {
  return trx
    .selectFrom('crm_activities')
    .select(ACTIVITY_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * What the activity list may be sorted by: occurred_at (NOT NULL), on crm_activities_by_occurred
 * `(tenant_id, occurred_at, id)` unfiltered, or on the link's partial index
 * `(tenant_id, <link>, occurred_at, id)` filtered by a lead, contact or deal (migration 0019).
 */
export const ACTIVITY_SORT_KEYS = {
  occurred_at: { expression: sql`crm_activities.occurred_at`, type: 'timestamptz' },
} satisfies Record<string, SortKey>;
export type ActivitySortKey = keyof typeof ACTIVITY_SORT_KEYS;

/**
 * A page of the tenant's activities, filtered by the records they are about, by page or by
 * cursor (the shared keyset helper).
 */
export async function listActivities(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<ActivitySortKey>,
  filters: ActivityFilters,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Activity>> {
  let query = trx
    .selectFrom('crm_activities')
    .select(ACTIVITY_COLUMNS)
    .where('crm_activities.tenant_id', '=', tenantId);
  if (filters.lead_id) query = query.where('lead_id', '=', filters.lead_id);
  if (filters.contact_id) query = query.where('contact_id', '=', filters.contact_id);
  if (filters.deal_id) query = query.where('deal_id', '=', filters.deal_id);
  return paginateByKeyset(trx, query, page, {
    sortKeys: ACTIVITY_SORT_KEYS,
    tiebreak: 'crm_activities.id',
    binding: listCursorBinding(binding.secret, 'crm_activities', tenantId, { ...filters }),
    filtered: Boolean(filters.lead_id || filters.contact_id || filters.deal_id),
  });
}
