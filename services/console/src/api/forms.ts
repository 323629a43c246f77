import type { FieldType } from '../../../../libs/records/src/forms/form-rules';
import { api, type Envelope } from './client';
import type { NumberedPage } from './products';

export interface FormField {
  name: string;
  label?: string;
  type: FieldType;
  required: boolean;
  options?: string[];
}

export interface WebForm {
  id: string;
  slug: string;
  name: string;
  fields: FormField[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface FormSubmission {
  id: string;
  form_id: string;
  lead_id: string | null;
  /** Every field as submitted (without the honeypot). */
  payload: Record<string, unknown>;
  created_at: string;
}

/** The sorts the form list offers. */
export type FormSortColumn = 'created_at' | 'updated_at' | 'name' | 'slug';
export interface FormQuery {
  sortBy: FormSortColumn;
  sortOrder: 'asc' | 'desc';
}

export const FORMS_PAGE_SIZE = 50;
export const SUBMISSIONS_PAGE_SIZE = 50;

export function fetchFormsPage(query: FormQuery, page: number, signal?: AbortSignal) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(FORMS_PAGE_SIZE),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
  });
  return api<NumberedPage<WebForm>>(`/api/crm/forms?${params}`, { signal });
}

export function fetchForm(id: string, signal?: AbortSignal) {
  return api<Envelope<{ form: WebForm }>>(`/api/crm/forms/${encodeURIComponent(id)}`, { signal });
}

/** What POST /api/crm/forms takes; PATCH takes the same without the slug (it never changes). */
export interface FormDefinition {
  slug: string;
  name: string;
  enabled: boolean;
  fields: FormField[];
}

export function createForm(form: FormDefinition) {
  return api<Envelope<{ form: WebForm }>>('/api/crm/forms', { method: 'POST', body: form });
}

export function updateForm(id: string, change: Omit<FormDefinition, 'slug'>) {
  return api<Envelope<{ form: WebForm }>>(`/api/crm/forms/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    body: change,
  });
}

/** One page of a form's submissions, newest first. */
export function fetchSubmissionsPage(formId: string, page: number, signal?: AbortSignal) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(SUBMISSIONS_PAGE_SIZE),
    sortBy: 'created_at',
    sortOrder: 'desc',
  });
  return api<NumberedPage<FormSubmission>>(
    `/api/crm/forms/${encodeURIComponent(formId)}/submissions?${params}`,
    { signal },
  );
}

/**
 * The public URL a form posts to (POST /api/public/forms/:tenantSlug/:formSlug/submit), on the
 * origin the console is served from: the gateway's, which serves the API too.
 */
export function publicSubmitUrl(origin: string, tenantSlug: string, formSlug: string): string {
  return `${origin}/api/public/forms/${encodeURIComponent(tenantSlug)}/${encodeURIComponent(formSlug)}/submit`;
}
