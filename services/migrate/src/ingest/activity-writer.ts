import {
  activityEvent,
  activityInputSchema,
  insertActivities,
  updateActivitiesById,
  type ActivityRow,
  type StoredActivity,
} from '@crm/records';
import { sourceRef, type MappedEntity } from './mapped-writer';

/** A migrated activity, linked to a lead, contact and/or deal migrated from the same source. */
export const migratedActivitySchema = activityInputSchema.extend({
  lead_external_id: sourceRef('lead_external_id'),
  contact_external_id: sourceRef('contact_external_id'),
  deal_external_id: sourceRef('deal_external_id'),
});

export const MIGRATED_ACTIVITIES: MappedEntity<ActivityRow, StoredActivity> = {
  entity: 'activities',
  schema: migratedActivitySchema,
  references: [
    { field: 'lead_external_id', entity: 'leads', column: 'lead_id' },
    { field: 'contact_external_id', entity: 'contacts', column: 'contact_id' },
    { field: 'deal_external_id', entity: 'deals', column: 'deal_id' },
  ],
  update: updateActivitiesById,
  insert: insertActivities,
  createdEvent: (tenantId, activity) => activityEvent('activity.created', tenantId, activity),
  updatedEvent: (tenantId, activity) => activityEvent('activity.updated', tenantId, activity),
};
