import type { ActivityColumn } from '@crm/records';
import { uuid } from '@crm/shared/http';
import { z } from 'zod';

/** Activities are listed by when they happened (crm_activities_by_occurred). */
export const ACTIVITY_SORTABLE = ['occurred_at'] as const satisfies readonly ActivityColumn[];
/** The records an activity is about; every one given must match. */
export const activityFiltersSchema = z.object({
  lead_id: uuid('lead_id').optional(),
  contact_id: uuid('contact_id').optional(),
  deal_id: uuid('deal_id').optional(),
});
/** An activity id in a path; anything else is answered as an unknown activity. */
export const activityIdSchema = z.uuid();
