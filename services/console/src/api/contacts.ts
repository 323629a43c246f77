import { api, type Envelope } from './client';
import type { CursorPage } from './leads';

export interface Contact {
  id: string;
  external_id: string | null;
  email: string | null;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  custom_fields: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

/** The sorts the contact list offers (each backed by an index). */
export type ContactSortColumn = 'created_at' | 'email' | 'last_name';
export interface ContactQuery {
  /** Text anywhere in a name, the full name, email, phone or company. */
  q: string;
  sortBy: ContactSortColumn;
  sortOrder: 'asc' | 'desc';
}

export const CONTACTS_PAGE_SIZE = 50;

/** One page of contacts: the first without a cursor, every later one by the previous `nextCursor`. */
export function fetchContactsPage(
  query: ContactQuery,
  cursor: string | null,
  signal?: AbortSignal,
) {
  const params = new URLSearchParams({
    pageSize: String(CONTACTS_PAGE_SIZE),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
  });
  if (cursor) params.set('cursor', cursor);
  if (query.q.trim()) params.set('q', query.q.trim());
  return api<CursorPage<Contact>>(`/api/crm/contacts?${params}`, { signal });
}

/** One contact (GET /api/crm/contacts/:id). */
export function fetchContact(id: string, signal?: AbortSignal) {
  return api<Envelope<{ contact: Contact }>>(`/api/crm/contacts/${encodeURIComponent(id)}`, {
    signal,
  });
}
