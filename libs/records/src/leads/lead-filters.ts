import { LEAD_STATUSES, type Database } from '@crm/shared/db';
import { sql, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
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

/** `%` and `_` in a search are literal characters, not wildcards. */
function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Adds the filters to a query over crm_leads; `q` searches email, first, last and full name. */
export function whereLeadFilters<O>(
  query: SelectQueryBuilder<Database, 'crm_leads', O>,
  filters: LeadFilters,
): SelectQueryBuilder<Database, 'crm_leads', O> {
  let filtered = query;
  if (filters.status) filtered = filtered.where('crm_leads.status', '=', filters.status);
  if (filters.source !== undefined) {
    filtered = filtered.where('crm_leads.source', '=', normalizeSource(filters.source) ?? '');
  }
  if (filters.q) {
    const pattern = likePattern(filters.q);
    filtered = filtered.where((eb) =>
      eb.or([
        eb('crm_leads.email', 'ilike', pattern),
        eb('crm_leads.first_name', 'ilike', pattern),
        eb('crm_leads.last_name', 'ilike', pattern),
        eb(
          sql`coalesce(crm_leads.first_name, '') || ' ' || coalesce(crm_leads.last_name, '')`,
          'ilike',
          pattern,
        ),
      ]),
    );
  }
  return filtered;
}
