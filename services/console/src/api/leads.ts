import { api, type Envelope } from './client';

/** Specified lead statuses (the leads list's `status` filter takes one of them). */
export const LEAD_STATUSES = [
  'new',
  'contacted',
  'qualified',
  'unqualified',
  'converted',
  'lost',
] as const;

export interface Lead {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  source: string | null;
  custom_fields: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

/**
 * The lead list's CursorPage (docs/api.md, List responses): the Page shape, whether `total` is
 * exact (past 10,000 it is a floor), and the cursor of the next page (null on the last).
 */
export interface CursorPage<T> {
  items: T[];
  total: number;
  totalExact: boolean;
  page: number;
  pageSize: number;
  totalPages: number;
  nextCursor: string | null;
}

/** The sorts the lead list offers (each backed by an index); names are not among them. */
export type LeadSortColumn = 'email' | 'status' | 'source' | 'created_at';
export interface LeadQuery {
  q: string;
  status: string;
  source: string;
  sortBy: LeadSortColumn;
  sortOrder: 'asc' | 'desc';
}

export const LEADS_PAGE_SIZE = 50;

/** What the leads screen opens on: no search or filter, the newest first. */
export const OPENING_LEAD_QUERY: LeadQuery = {
  q: '',
  status: '',
  source: '',
  sortBy: 'created_at',
  sortOrder: 'desc',
};

/** One page of leads: the first without a cursor, every later one by the previous `nextCursor`. */
export function fetchLeadsPage(query: LeadQuery, cursor: string | null, signal?: AbortSignal) {
  return api<CursorPage<Lead>>(leadsPagePath(query, cursor), { signal });
}

/** The address of that page (first-requests.ts asks for the opening one before the app runs). */
export function leadsPagePath(query: LeadQuery, cursor: string | null): string {
  const params = new URLSearchParams({
    pageSize: String(LEADS_PAGE_SIZE),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
  });
  if (cursor) params.set('cursor', cursor);
  if (query.q.trim()) params.set('q', query.q.trim());
  if (query.status) params.set('status', query.status);
  if (query.source.trim()) params.set('source', query.source.trim());
  return `/api/crm/leads?${params}`;
}

/** One lead (GET /api/crm/leads/:id). */
export function fetchLead(id: string, signal?: AbortSignal) {
  return api<Envelope<{ lead: Lead }>>(`/api/crm/leads/${encodeURIComponent(id)}`, { signal });
}

/** What a lead form sends: '' clears a text on a change (PATCH). */
export interface LeadFields {
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
  status: string;
  source: string;
}

/** POST /api/crm/leads: 201 with the lead; a 409 ALREADY_EXISTS when the email is taken. */
export async function createLead(fields: Partial<LeadFields>): Promise<Lead> {
  const answer = await api<Envelope<{ lead: Lead }>>('/api/crm/leads', {
    method: 'POST',
    body: fields,
  });
  return answer.data.lead;
}

/** PATCH /api/crm/leads/:id with the fields that changed. */
export async function updateLead(id: string, change: Partial<LeadFields>): Promise<Lead> {
  const answer = await api<Envelope<{ lead: Lead }>>(`/api/crm/leads/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: change,
  });
  return answer.data.lead;
}

/** DELETE /api/crm/leads/:id (its deals and activities keep their rows, without the lead). */
export function deleteLead(id: string) {
  return api<Envelope<{ id: string }>>(`/api/crm/leads/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  });
}

/** One thing that happened with a lead (docs/timeline.md): an activity, a deal, an email… */
export interface TimelineItem {
  type: string;
  id: string;
  occurred_at: string;
  summary: string;
  data: Record<string, unknown>;
}

export const TIMELINE_PAGE_SIZE = 20;

/** One page of a lead's timeline, newest first; later pages by the previous `nextCursor`. */
export function fetchLeadTimeline(id: string, cursor: string | null, signal?: AbortSignal) {
  const params = new URLSearchParams({ limit: String(TIMELINE_PAGE_SIZE) });
  if (cursor) params.set('cursor', cursor);
  return api<{ items: TimelineItem[]; nextCursor: string | null }>(
    `/api/crm/leads/${encodeURIComponent(id)}/timeline?${params}`,
    { signal },
  );
}
