import type { Database, Trx } from '@crm/shared/db';
import { DEAL_COLUMNS } from '@crm/records';
import type { Kysely } from 'kysely';
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

export async function listDeals(db: Db, tenantId: string, query: DealListQuery) {
  let q = db
    .selectFrom('crm_deals')
    .select([...DEAL_COLUMNS])
    .where('tenant_id', '=', tenantId);
  if (query.stage) q = q.where('stage', '=', query.stage);
  if (query.assigned_to) q = q.where('assigned_to', '=', query.assigned_to);
  if (query.lead_id) q = q.where('lead_id', '=', query.lead_id);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}
