import { Migrator, sql, type Kysely, type MigrationResult } from 'kysely';
import { migrations } from './migrations';
import type { Database } from './schema';

export interface MigrateOutcome {
  applied: string[];
}

/**
 * Applies every pending migration (kysely's Migrator: ordered, each in its own transaction,
 * serialised across processes by its lock table, so running it twice or concurrently is safe),
 * then checks that every table with a tenant_id column is under row-level security.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrateOutcome> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r: MigrationResult) => r.status === 'Error');
    const where = failed ? ` (migration ${failed.migrationName})` : '';
    throw new Error(
      `Migration failed${where}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
  await assertRowLevelSecurity(db);
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
  };
}

export interface RlsGap {
  table: string;
  problem: string;
}

/**
 * Tables in the current schema, and partitions in any (a partitioned table's may live in a
 * schema of their own), that have a tenant_id column but lack forced RLS or a policy.
 */
export async function findRowLevelSecurityGaps(db: Kysely<Database>): Promise<RlsGap[]> {
  const { rows } = await sql<{
    table: string;
    enabled: boolean;
    forced: boolean;
    has_tenant_policy: boolean;
  }>`
    SELECT c.relname AS table,
           c.relrowsecurity AS enabled,
           c.relforcerowsecurity AS forced,
           EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant_isolation') AS has_tenant_policy
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
     WHERE (n.nspname = current_schema() OR c.relispartition) AND c.relkind IN ('r', 'p')
     ORDER BY c.relname`.execute(db);
  const gaps: RlsGap[] = [];
  for (const row of rows) {
    if (!row.enabled) gaps.push({ table: row.table, problem: 'row level security is not enabled' });
    else if (!row.forced)
      gaps.push({ table: row.table, problem: 'row level security is not forced' });
    if (!row.has_tenant_policy)
      gaps.push({ table: row.table, problem: 'no tenant_isolation policy' });
  }
  // A view reads its tables with its owner's rights, past the reader's policies: one with a
  // tenant_id column must hold the tenant condition itself (the search views do).
  const { rows: views } = await sql<{ view: string }>`
    SELECT c.relname AS view
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
     WHERE n.nspname = current_schema() AND c.relkind = 'v'
       AND pg_get_viewdef(c.oid) NOT LIKE '%tenant_id = app_current_tenant()%'
     ORDER BY c.relname`.execute(db);
  for (const { view } of views) {
    gaps.push({ table: view, problem: 'view without the tenant condition' });
  }
  return gaps;
}

export async function assertRowLevelSecurity(db: Kysely<Database>): Promise<void> {
  const gaps = await findRowLevelSecurityGaps(db);
  if (gaps.length > 0) {
    const list = gaps.map((g) => `${g.table}: ${g.problem}`).join('; ');
    throw new Error(
      `Tenant tables without row-level security: ${list}. Call enableTenantRls() in the migration that creates them.`,
    );
  }
}
