import { dealFilterFields, LEAD_COLUMNS, leadFilterFields, type LeadColumn } from '@crm/records';
import type { Database } from '@crm/shared/db';
import { sql, type CompiledQuery, type Expression, type Kysely } from 'kysely';
import { z } from 'zod';
import type { ColumnKind, ExportColumn, ExportSelection } from './export-columns';
import { exportDealsQuery, exportLeadsQuery } from './exports.repository';

export interface ExportResource {
  name: 'leads' | 'deals';
  title: string;
  /** The allow-list, in default order; every format's default is all of them except the PDF's. */
  columns: readonly ExportColumn[];
  /** Fewer, so a landscape page stays readable. */
  pdfDefaultColumns: readonly string[];
  filters: z.ZodType<Record<string, unknown>>;
  /**
   * The rows of one tenant, filtered and ordered, as a query to run under a cursor (`values`) or
   * a COPY (`csv`); `db` is the transaction, or any instance when the query is only compiled.
   */
  rowsQuery(
    db: Kysely<Database>,
    tenantId: string,
    filters: Record<string, unknown>,
    columns: ExportColumn[],
    as: ExportSelection,
  ): Expression<unknown> & { compile(): CompiledQuery };
}

const column = (
  key: string,
  label: string,
  kind: ColumnKind,
  pdfWidth: number,
  ref: string,
): ExportColumn => ({ key, label, kind, pdfWidth, expr: sql.ref(ref) });

const leadFilters = z.strictObject(leadFilterFields);

/**
 * How each lead column is exported: its header, kind and PDF width. The columns themselves,
 * and their order, are @crm/records' LEAD_COLUMNS; a column added there is a type error here
 * until it is labelled.
 */
const LEAD_EXPORT: Record<LeadColumn, [label: string, kind: ColumnKind, pdfWidth: number]> = {
  id: ['ID', 'text', 2.6],
  email: ['Email', 'text', 2.6],
  first_name: ['First name', 'text', 1.3],
  last_name: ['Last name', 'text', 1.3],
  phone: ['Phone', 'text', 1.3],
  status: ['Status', 'text', 1],
  source: ['Source', 'text', 1.1],
  custom_fields: ['Custom fields', 'json', 2.4],
  created_at: ['Created', 'datetime', 1.4],
  updated_at: ['Updated', 'datetime', 1.4],
};

const leads: ExportResource = {
  name: 'leads',
  title: 'Leads',
  columns: LEAD_COLUMNS.map((key) => column(key, ...LEAD_EXPORT[key], `crm_leads.${key}`)),
  pdfDefaultColumns: [
    'email',
    'first_name',
    'last_name',
    'phone',
    'status',
    'source',
    'created_at',
  ] satisfies LeadColumn[],
  filters: leadFilters,
  rowsQuery: (db, tenantId, filters, columns, as) =>
    exportLeadsQuery(db, tenantId, filters as z.infer<typeof leadFilters>, columns, as),
};

const dealFilters = z.strictObject(dealFilterFields);

const deals: ExportResource = {
  name: 'deals',
  title: 'Deals',
  columns: [
    column('id', 'ID', 'text', 2.6, 'crm_deals.id'),
    column('title', 'Title', 'text', 2.6, 'crm_deals.title'),
    column('value', 'Value', 'money', 1.2, 'crm_deals.value'),
    { ...column('currency', 'Currency', 'text', 0.8, 'crm_deals.currency'), padded: true },
    column('stage', 'Stage', 'text', 1.1, 'crm_deals.stage'),
    column('assigned_to', 'Assigned to (id)', 'text', 2.6, 'crm_deals.assigned_to'),
    column('assigned_to_email', 'Assigned to', 'text', 2.2, 'assignee.email'),
    column('lead_id', 'Lead id', 'text', 2.6, 'crm_deals.lead_id'),
    column('contact_id', 'Contact id', 'text', 2.6, 'crm_deals.contact_id'),
    column('expected_close_date', 'Expected close', 'date', 1.2, 'crm_deals.expected_close_date'),
    column('custom_fields', 'Custom fields', 'json', 2.4, 'crm_deals.custom_fields'),
    column('created_by', 'Created by (id)', 'text', 2.6, 'crm_deals.created_by'),
    column('created_at', 'Created', 'datetime', 1.4, 'crm_deals.created_at'),
    column('updated_at', 'Updated', 'datetime', 1.4, 'crm_deals.updated_at'),
  ],
  pdfDefaultColumns: [
    'title',
    'value',
    'currency',
    'stage',
    'assigned_to_email',
    'expected_close_date',
    'created_at',
  ],
  filters: dealFilters,
  rowsQuery: (db, tenantId, filters, columns, as) =>
    exportDealsQuery(db, tenantId, filters as z.infer<typeof dealFilters>, columns, as),
};

export const EXPORT_RESOURCES: Record<ExportResource['name'], ExportResource> = { leads, deals };
