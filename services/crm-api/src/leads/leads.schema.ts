import { leadFilterFields, type LeadColumn } from '@crm/records';
import { z } from 'zod';

/** The lead's own schema and rules are in @crm/records; these are the HTTP edge's. */
export const LEAD_SORTABLE = [
  'created_at',
  'updated_at',
  'email',
  'first_name',
  'last_name',
  'status',
  'source',
] as const satisfies readonly LeadColumn[];
export const leadFiltersSchema = z.object(leadFilterFields);
/** A lead id in a path; anything else is answered as an unknown lead. */
export const leadIdSchema = z.uuid();
