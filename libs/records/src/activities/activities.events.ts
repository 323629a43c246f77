import type { EventInput } from '@crm/shared/events';
import type { StoredActivity } from './activities.repository';

export const ACTIVITY_MODULE = 'activities';
export const ACTIVITY_EVENT_TYPES = ['activity.created', 'activity.updated'] as const;

export function activityEvent(
  type: (typeof ACTIVITY_EVENT_TYPES)[number],
  tenantId: string,
  activity: StoredActivity,
): EventInput {
  return {
    type,
    tenant_id: tenantId,
    record: { module: ACTIVITY_MODULE, id: activity.id },
    data: { type: activity.type, occurred_at: activity.occurred_at },
  };
}
