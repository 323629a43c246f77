import { sql } from 'kysely';
import type { Db } from '../db/create-db';

let tenantTables: Promise<string[]> | undefined;

/**
 * Every tenant table: a `tenant_id` column under row-level security (migrateToLatest refuses a
 * tenant table without it). Read once per test file from the catalog. Requiring RLS keeps out
 * the throwaway tables some tests create and drop (a trigger's counter, an unprotected table
 * in the isolation test): cached here while they existed, they failed every later count.
 */
function tablesWithTenantId(db: Db): Promise<string[]> {
  tenantTables ??= sql<{ table_name: string }>`
    SELECT c.relname AS table_name
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relrowsecurity
      AND a.attname = 'tenant_id' AND NOT a.attisdropped
    ORDER BY c.relname`
    .execute(db.db)
    .then(({ rows }) => rows.map((r) => r.table_name));
  return tenantTables;
}

/**
 * Rows of one tenant in every tenant table (outbox and ledger included), in one query: what a
 * test compares before and after a request to show that a refused request wrote nothing. The
 * test database's owner bypasses row-level security, so no scope is needed.
 */
export async function tenantRowCounts(db: Db, tenantId: string): Promise<Record<string, number>> {
  const tables = await tablesWithTenantId(db);
  const counts = tables.map(
    (table) =>
      sql<{
        name: string;
        n: string;
      }>`SELECT ${table}::text AS name, count(*)::text AS n FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`,
  );
  const { rows } = await sql<{ name: string; n: string }>`${sql.join(
    counts,
    sql` UNION ALL `,
  )}`.execute(db.db);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

/**
 * Rows in every table of the database but `except` (for a test on a database of its own,
 * isolatedTestDb(), where no other test file writes): everything a request could have written.
 */
export async function allRowCounts(db: Db, except: string[] = []): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
    ORDER BY table_name`.execute(db.db);
  const counts = tables
    .map((t) => t.table_name)
    .filter((table) => !except.includes(table))
    .map(
      (table) =>
        sql<{
          name: string;
          n: string;
        }>`SELECT ${table}::text AS name, count(*)::text AS n FROM ${sql.table(table)}`,
    );
  const { rows } = await sql<{ name: string; n: string }>`${sql.join(
    counts,
    sql` UNION ALL `,
  )}`.execute(db.db);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}
