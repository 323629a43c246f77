import { api } from './client';

/** The lead fields an import row may set (docs/leads-and-deals.md, POST /api/v1/import/leads). */
export const IMPORT_LEAD_FIELDS = [
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'source',
] as const;
export type ImportLeadField = (typeof IMPORT_LEAD_FIELDS)[number];

/** One row as the import route takes it: unknown keys travel inside `custom_fields`. */
export type ImportLead = Partial<Record<ImportLeadField, string>> & {
  custom_fields?: Record<string, unknown>;
};

/** The import's 200: per-row failures by their zero-based position in the request. */
export interface ImportAnswer {
  success: boolean;
  imported: number;
  failed: number;
  errors: { index: number; error: string }[];
}

/** The most rows one request may carry (the route's IMPORT_MAX_ROWS). */
export const IMPORT_MAX_ROWS_PER_REQUEST = 10_000;

export const importLeads = (leads: ImportLead[], signal?: AbortSignal) =>
  api<ImportAnswer>('/api/v1/import/leads', { method: 'POST', body: { leads }, signal });
