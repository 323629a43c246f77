import { LEAD_STATUSES, type Database } from '@crm/shared/db';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { listRows, matchesSearch } from '../search-rows.repository';
import { normalizeSource } from './normalize-lead';

/** Filters of the lead list and the lead export: `status`, `source` (normalised as on import), `q`. */
export const leadFilterFields = {
  status: z
    .enum(LEAD_STATUSES, { message: `status must be one of: ${LEAD_STATUSES.join(', ')}` })
    .optional(),
  source: z.string().max(100).optional(),
  q: z.string().trim().max(200).optional(),
};

export type LeadFilters = { status?: string; source?: string; q?: string };

/** The leads a read starts from: the search view when it searches (`q`), else the table. */
export function leadListSource(trx: Kysely<Database>, searching: boolean) {
  return listRows(trx, 'crm_leads', searching);
}

/**
 * Adds the filters to a query over `leadListSource(trx, Boolean(filters.q))`; `q` searches names, full name,
 * email, phone and company (`matchesSearch`).
 */
export function whereLeadFilters<O>(
  query: SelectQueryBuilder<Database, 'crm_leads', O>,
  filters: LeadFilters,
): SelectQueryBuilder<Database, 'crm_leads', O> {
  let filtered = query;
  if (filters.status) filtered = filtered.where('crm_leads.status', '=', filters.status);
  if (filters.source !== undefined) {
    filtered = filtered.where('crm_leads.source', '=', normalizeSource(filters.source) ?? '');
  }
  // The live text alone (no search index: the export, the one reader with `q` here, reads the
  // tenant's leads in one pass anyway, and so never misses a lead the indexer has not seen yet).
  if (filters.q) filtered = filtered.where(matchesSearch('crm_leads', filters.q));
  return filtered;
}
