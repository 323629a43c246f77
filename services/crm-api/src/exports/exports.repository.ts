import { leadListSource, whereLeadFilters } from '@crm/records';
import type { DEAL_STAGES, Database, Trx } from '@crm/shared/db';
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { escapeLiteral } from 'pg';
import type { ExportColumn } from './export-resources';

/**
 * How a query selects the columns: `values` as the driver parses them (the XLSX and PDF rows),
 * `csv` as the exact text of the CSV's cells before quoting, one text column each (COPY).
 */
export type ExportSelection = 'values' | 'csv';

/**
 * A column as the CSV reads it from the COPY: a time as it is (binary, microseconds since 2000:
 * CsvFromCopy writes it as cellText did, cheaper than Postgres's to_char), anything else as
 * Postgres's text of it. JSON is left as Postgres writes it (`{"a": 1}`) and re-written by
 * cellText on the way out.
 */
function csvText(column: ExportColumn): RawBuilder<unknown> {
  if (column.kind === 'datetime') return sql`${column.expr}`;
  // format() writes a value by its type's output function, padding kept; NULL gives ''.
  if (column.padded) return sql`format('%s', ${column.expr})`;
  return sql`${column.expr}::text`;
}

function selection(columns: ExportColumn[], as: ExportSelection) {
  return columns.map((c) => (as === 'csv' ? csvText(c) : c.expr).as(c.key));
}

/** The tenant's name, for the file's heading. */
export function tenantNameQuery(db: Kysely<Database>, tenantId: string) {
  return db.selectFrom('tenants').select('name').where('id', '=', tenantId);
}

/** The tenant's name, for the file's heading; undefined once the tenant is gone. */
export function findTenantName(trx: Trx, tenantId: string) {
  return tenantNameQuery(trx, tenantId).executeTakeFirst();
}

/** The tenant's leads, filtered, newest first: a query to run under a cursor or a COPY. */
export function exportLeadsQuery(
  db: Kysely<Database>,
  tenantId: string,
  filters: Parameters<typeof whereLeadFilters>[1],
  columns: ExportColumn[],
  as: ExportSelection,
) {
  let query = leadListSource(db, Boolean(filters.q))
    .select(selection(columns, as))
    .where('crm_leads.tenant_id', '=', tenantId);
  query = whereLeadFilters(query, filters);
  // Newest first, as the lists; the order of the (tenant_id, created_at DESC, id) index.
  return query.orderBy('crm_leads.created_at', 'desc').orderBy('crm_leads.id', 'asc');
}

/** The tenant's deals with their assignee's email, filtered, newest first. */
export function exportDealsQuery(
  db: Kysely<Database>,
  tenantId: string,
  filters: { stage?: (typeof DEAL_STAGES)[number]; assigned_to?: string },
  columns: ExportColumn[],
  as: ExportSelection,
) {
  // Users are visible under RLS only while they are members of this tenant: a former
  // member's deals export with an empty "Assigned to".
  let query = db
    .selectFrom('crm_deals')
    .leftJoin('users as assignee', 'assignee.id', 'crm_deals.assigned_to')
    .select(selection(columns, as))
    .where('crm_deals.tenant_id', '=', tenantId);
  if (filters.stage) query = query.where('crm_deals.stage', '=', filters.stage);
  if (filters.assigned_to) query = query.where('crm_deals.assigned_to', '=', filters.assigned_to);
  return query.orderBy('crm_deals.created_at', 'desc').orderBy('crm_deals.id', 'asc');
}

/**
 * `COPY (<query>) TO STDOUT` in Postgres's binary format: every column but the times is text
 * (the `csv` selection), so each cell arrives as its UTF-8 bytes behind a length, with nothing
 * escaped and nothing to parse. A COPY of a query runs under the transaction's role, so row-level security
 * applies as to the query itself. COPY takes no bind parameters: the query's are inlined as
 * quoted literals (pg's escapeLiteral), which Postgres types as it types a parameter.
 */
export function csvCopyStatement(query: CompiledQuery): string {
  const text = query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = query.parameters[Number(n) - 1];
    // A number too goes in quoted (an untyped literal, as a parameter): a bare `-1` after a
    // `-` would read as a comment.
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))
      return escapeLiteral(String(value));
    throw new Error(`an export parameter of type ${typeof value} cannot be inlined`);
  });
  return `COPY (${text}) TO STDOUT (FORMAT binary)`;
}
