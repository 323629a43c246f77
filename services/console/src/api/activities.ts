import { api, type Envelope } from './client';
import type { NumberedPage } from './products';

export interface Activity {
  id: string;
  type: string;
  subject: string | null;
  body: string | null;
  occurred_at: string;
  lead_id: string | null;
  contact_id: string | null;
  deal_id: string | null;
  custom_fields: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

/** The records an activity is about; the list keeps those matching every one given. */
export const ACTIVITY_FILTERS = ['lead_id', 'contact_id', 'deal_id'] as const;
export type ActivityFilter = (typeof ACTIVITY_FILTERS)[number];

export interface ActivityQuery {
  /** The list sorts only by when an activity happened (`occurred_at`). */
  sortOrder: 'asc' | 'desc';
  filters: Partial<Record<ActivityFilter, string>>;
}

export const ACTIVITIES_PAGE_SIZE = 50;

/** One page of activities, by number (the list has no cursor). */
export function fetchActivitiesPage(query: ActivityQuery, page: number, signal?: AbortSignal) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(ACTIVITIES_PAGE_SIZE),
    sortBy: 'occurred_at',
    sortOrder: query.sortOrder,
  });
  for (const name of ACTIVITY_FILTERS) {
    const value = query.filters[name];
    if (value) params.set(name, value);
  }
  return api<NumberedPage<Activity>>(`/api/crm/activities?${params}`, { signal });
}

/** One activity (GET /api/crm/activities/:id). */
export function fetchActivity(id: string, signal?: AbortSignal) {
  return api<Envelope<{ activity: Activity }>>(`/api/crm/activities/${encodeURIComponent(id)}`, {
    signal,
  });
}
