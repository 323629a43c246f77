import { api } from './client';

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

/** The list's Page shape (docs/api.md, List responses). */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

export type LeadSortColumn =
  'email' | 'first_name' | 'last_name' | 'status' | 'source' | 'created_at';
export interface LeadQuery {
  q: string;
  status: string;
  source: string;
  sortBy: LeadSortColumn;
  sortOrder: 'asc' | 'desc';
}

export const LEADS_PAGE_SIZE = 50;

export function fetchLeadsPage(query: LeadQuery, page: number, signal?: AbortSignal) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(LEADS_PAGE_SIZE),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
  });
  if (query.q.trim()) params.set('q', query.q.trim());
  if (query.status) params.set('status', query.status);
  if (query.source.trim()) params.set('source', query.source.trim());
  return api<Page<Lead>>(`/api/crm/leads?${params}`, { signal });
}
