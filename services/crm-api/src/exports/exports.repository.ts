import { filteredDeals, leadListSource, whereLeadFilters, type DealFilters } from '@crm/records';
import type { Database, Trx } from '@crm/shared/db';
import { sql, type CompiledQuery, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { escapeLiteral, type PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ExportColumn, ExportRow, ExportSelection } from './export-columns';

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
  filters: Omit<DealFilters, 'lead_id'>,
  columns: ExportColumn[],
  as: ExportSelection,
) {
  // Users are visible under RLS only while they are members of this tenant: a former
  // member's deals export with an empty "Assigned to".
  return filteredDeals(db, tenantId, filters)
    .leftJoin('users as assignee', 'assignee.id', 'crm_deals.assigned_to')
    .select(selection(columns, as))
    .orderBy('crm_deals.created_at', 'desc')
    .orderBy('crm_deals.id', 'asc');
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

/**
 * The tenant's name for the CSV's heading, read on the COPY's own client (inside its tenant
 * transaction); undefined once the tenant is gone. `db` only compiles the statement.
 */
export async function findTenantNameOnClient(
  client: PoolClient,
  db: Kysely<Database>,
  tenantId: string,
): Promise<{ name: string } | undefined> {
  const named = tenantNameQuery(db, tenantId).compile();
  const { rows } = await client.query<{ name: string }>(named.sql, [...named.parameters]);
  return rows[0];
}

/**
 * Lifts the pool's statement timeout for the rest of the client's transaction: a CSV is one
 * COPY for the whole download, as long as the client takes to read it (a cursor's FETCHes were
 * short each), and the timeout would cut a big export off.
 */
export async function allowLongStatements(client: PoolClient): Promise<void> {
  await client.query('SET LOCAL statement_timeout = 0');
}

/**
 * Starts the COPY of `query` (csvCopyStatement) on the client; its stream yields the binary
 * COPY's bytes, buffering at most `highWaterMark` of them ahead of the reader.
 */
export function copyRows(client: PoolClient, query: CompiledQuery, highWaterMark: number) {
  return client.query(copyTo(csvCopyStatement(query), { highWaterMark }));
}

/**
 * Reads `query` through a server-side cursor in batches of `batchSize`, so only one batch is
 * in memory at a time, however many rows match. Runs inside the caller's transaction (the
 * cursor lives until it ends), which also gives every batch the same snapshot. Closing the
 * generator early (return/throw) closes the cursor.
 */
export async function* rowBatches(
  trx: Trx,
  query: Expression<unknown>,
  batchSize: number,
): AsyncGenerator<ExportRow[], void, undefined> {
  await sql`DECLARE crm_export NO SCROLL CURSOR FOR ${query}`.execute(trx);
  let open = true;
  try {
    for (;;) {
      const { rows } =
        await sql<ExportRow>`FETCH FORWARD ${sql.lit(batchSize)} FROM crm_export`.execute(trx);
      if (rows.length > 0) yield rows;
      if (rows.length < batchSize) break;
    }
    await sql`CLOSE crm_export`.execute(trx);
    open = false;
  } finally {
    // Left early (a client gone, a failed write): free the portal now, not at commit. A failed
    // transaction refuses the CLOSE too, and its rollback frees the portal anyway.
    if (open) await sql`CLOSE crm_export`.execute(trx).catch(() => undefined);
  }
}
