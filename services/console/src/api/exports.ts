import { api, downloadFile } from './client';
import { DEAL_STAGES } from './deals';
import { LEAD_STATUSES } from './leads';

/*
 * POST /api/exports (docs/exports.md): a CSV, XLSX or PDF file of the tenant's leads or deals,
 * streamed in the answer. The API has no route listing its columns, so the allow-lists and the
 * PDF's shorter default are repeated here, in the API's order.
 */
export const EXPORT_FORMATS = ['csv', 'xlsx', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type ExportResource = 'leads' | 'deals';

export interface ExportColumn {
  key: string;
  label: string;
}

export const EXPORT_RESOURCES: Record<
  ExportResource,
  { label: string; columns: ExportColumn[]; pdfColumns: string[] }
> = {
  leads: {
    label: 'Leads',
    columns: [
      { key: 'id', label: 'ID' },
      { key: 'email', label: 'Email' },
      { key: 'first_name', label: 'First name' },
      { key: 'last_name', label: 'Last name' },
      { key: 'phone', label: 'Phone' },
      { key: 'status', label: 'Status' },
      { key: 'source', label: 'Source' },
      { key: 'custom_fields', label: 'Custom fields' },
      { key: 'created_at', label: 'Created' },
      { key: 'updated_at', label: 'Updated' },
    ],
    pdfColumns: ['email', 'first_name', 'last_name', 'phone', 'status', 'source', 'created_at'],
  },
  deals: {
    label: 'Deals',
    columns: [
      { key: 'id', label: 'ID' },
      { key: 'title', label: 'Title' },
      { key: 'value', label: 'Value' },
      { key: 'currency', label: 'Currency' },
      { key: 'stage', label: 'Stage' },
      { key: 'assigned_to', label: 'Assigned to (id)' },
      { key: 'assigned_to_email', label: 'Assigned to' },
      { key: 'lead_id', label: 'Lead id' },
      { key: 'contact_id', label: 'Contact id' },
      { key: 'expected_close_date', label: 'Expected close' },
      { key: 'custom_fields', label: 'Custom fields' },
      { key: 'created_by', label: 'Created by (id)' },
      { key: 'created_at', label: 'Created' },
      { key: 'updated_at', label: 'Updated' },
    ],
    pdfColumns: [
      'title',
      'value',
      'currency',
      'stage',
      'assigned_to_email',
      'expected_close_date',
      'created_at',
    ],
  },
};

/** What a format carries when the request names no columns. */
export function defaultColumns(resource: ExportResource, format: ExportFormat): string[] {
  const { columns, pdfColumns } = EXPORT_RESOURCES[resource];
  return format === 'pdf' ? pdfColumns : columns.map((c) => c.key);
}

export { DEAL_STAGES, LEAD_STATUSES };

export interface ExportRequest {
  resource: ExportResource;
  format: ExportFormat;
  filters: Record<string, string>;
  columns: string[];
}

/** The file, read as it streams in; empty filters are left out (the API refuses unknown ones). */
export function downloadExport(
  request: ExportRequest,
  options: { signal?: AbortSignal; onBytes?: (received: number) => void },
) {
  const filters = Object.fromEntries(
    Object.entries(request.filters).filter(([, value]) => value.trim() !== ''),
  );
  return downloadFile('/api/exports', { ...request, filters }, options);
}

/** How many rows an export with these filters would hold, from the resource's own list. */
export interface MatchCount {
  count: number;
  /** false: `count` is a floor (the leads list counts to 10,000, the deals list answers 1,000). */
  exact: boolean;
}

const DEALS_COUNT_LIMIT = 1000;

export async function countMatching(
  resource: ExportResource,
  filters: Record<string, string>,
  signal?: AbortSignal,
): Promise<MatchCount> {
  const params = new URLSearchParams(
    Object.entries(filters).filter(([, value]) => value.trim() !== ''),
  );
  if (resource === 'leads') {
    params.set('pageSize', '1');
    const page = await api<{ total: number; totalExact: boolean }>(`/api/crm/leads?${params}`, {
      signal,
    });
    return { count: page.total, exact: page.totalExact };
  }
  params.set('limit', String(DEALS_COUNT_LIMIT));
  const { deals } = await api<{ deals: unknown[] }>(`/api/crm/deals?${params}`, { signal });
  return { count: deals.length, exact: deals.length < DEALS_COUNT_LIMIT };
}
