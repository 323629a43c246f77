import { leadListSource, whereLeadFilters } from '@crm/records';
import type { DEAL_STAGES, Trx } from '@crm/shared/db';
import type { ExportColumn } from './export-resources';

/** The tenant's name, for the file's heading; undefined once the tenant is gone. */
export function findTenantName(trx: Trx, tenantId: string) {
  return trx.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst();
}

/** The tenant's leads, filtered, newest first: a query to run under a cursor. */
export function exportLeadsQuery(
  trx: Trx,
  tenantId: string,
  filters: Parameters<typeof whereLeadFilters>[1],
  columns: ExportColumn[],
) {
  let query = leadListSource(trx, Boolean(filters.q))
    .select(columns.map((c) => c.expr.as(c.key)))
    .where('crm_leads.tenant_id', '=', tenantId);
  query = whereLeadFilters(query, filters);
  // Newest first, as the lists; the order of the (tenant_id, created_at DESC, id) index.
  return query.orderBy('crm_leads.created_at', 'desc').orderBy('crm_leads.id', 'asc');
}

/** The tenant's deals with their assignee's email, filtered, newest first. */
export function exportDealsQuery(
  trx: Trx,
  tenantId: string,
  filters: { stage?: (typeof DEAL_STAGES)[number]; assigned_to?: string },
  columns: ExportColumn[],
) {
  // Users are visible under RLS only while they are members of this tenant: a former
  // member's deals export with an empty "Assigned to".
  let query = trx
    .selectFrom('crm_deals')
    .leftJoin('users as assignee', 'assignee.id', 'crm_deals.assigned_to')
    .select(columns.map((c) => c.expr.as(c.key)))
    .where('crm_deals.tenant_id', '=', tenantId);
  if (filters.stage) query = query.where('crm_deals.stage', '=', filters.stage);
  if (filters.assigned_to) query = query.where('crm_deals.assigned_to', '=', filters.assigned_to);
  return query.orderBy('crm_deals.created_at', 'desc').orderBy('crm_deals.id', 'asc');
}
