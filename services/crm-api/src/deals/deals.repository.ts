import type { Database, Trx } from '@crm/shared/db';
import { DEAL_COLUMNS } from '@crm/records';
import {
  listCursorBinding,
  sliceByKeyset,
  type CursorBinding,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Kysely } from 'kysely';
import type { DealListQuery } from './deals.schema';

type Db = Kysely<Database> | Trx;

/** Under RLS another tenant's ids look absent, so this says "inside this tenant". */
export async function isTenantMember(db: Db, tenantId: string, userId: string): Promise<boolean> {
  const member = await db
    .selectFrom('tenant_users')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return member !== undefined;
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
 * The tenant's newest `limit` deals (filtered by stage and assignee), or those after `cursor`,
 * and the cursor after the last one (null when there are no more): the list keeps its `{ deals }`
 * with no page or count, and pages by keyset (the shared helper; `binding` signs the cursors).
 */
export async function listDeals(
  db: Db,
  tenantId: string,
  query: DealListQuery,
  binding: Pick<CursorBinding, 'secret'>,
) {
  let q = db
    .selectFrom('crm_deals')
    .select([...DEAL_COLUMNS])
    .where('crm_deals.tenant_id', '=', tenantId);
  if (query.stage) q = q.where('stage', '=', query.stage);
  if (query.assigned_to) q = q.where('assigned_to', '=', query.assigned_to);
  if (query.lead_id) q = q.where('lead_id', '=', query.lead_id);
  const filters = { stage: query.stage, assigned_to: query.assigned_to, lead_id: query.lead_id };
  return sliceByKeyset(
    q,
    { limit: query.limit, sortBy: 'created_at', sortOrder: 'desc', cursor: query.cursor },
    {
      sortKeys: DEAL_SORT_KEYS,
      tiebreak: 'crm_deals.id',
      binding: listCursorBinding(binding.secret, 'crm_deals', tenantId, filters),
    },
  );
}
