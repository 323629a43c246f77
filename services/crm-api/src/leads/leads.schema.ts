import { LEAD_SORT_KEYS, leadFilterFields, type LeadSortKey } from '@crm/records';
import { z } from 'zod';

/** The lead's own schema and rules are in @crm/records; these are the HTTP edge's. */
/** Every sortBy the list offers has an index behind it (LEAD_SORT_KEYS, migration 0018). */
export const LEAD_SORTABLE = Object.keys(LEAD_SORT_KEYS) as [LeadSortKey, ...LeadSortKey[]];
export const leadFiltersSchema = z.object(leadFilterFields);
/** A lead id in a path; anything else is answered as an unknown lead. */
export const leadIdSchema = z.uuid();
