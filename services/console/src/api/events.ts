import { api, type Envelope } from './client';
import type { CursorPage } from './leads';

/** One of the tenant's recent platform events (GET /api/events): a batch row shows its first. */
export interface PlatformEvent {
  id: string;
  type: string;
  event_count: number;
  record: { module: string; id: string };
  occurred_at: string;
  created_at: string;
  data: Record<string, unknown>;
}

export const EVENTS_PAGE_SIZE = 25;

/** A page of events, newest first; `cursor` is the previous page's nextCursor. */
export function fetchEventsPage(type: string, cursor: string | undefined, signal?: AbortSignal) {
  const params = new URLSearchParams({ pageSize: String(EVENTS_PAGE_SIZE) });
  if (type) params.set('type', type);
  if (cursor) params.set('cursor', cursor);
  return api<CursorPage<PlatformEvent>>(`/api/events?${params}`, { signal });
}

/** The event types the platform emits: the filter's choices. */
export function fetchEventTypes(signal?: AbortSignal) {
  return api<Envelope<{ types: string[] }>>('/api/events/types', { signal });
}
