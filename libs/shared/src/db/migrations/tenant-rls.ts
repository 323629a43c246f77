import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE, TENANT_ROLE } from '../roles';

/**
 * Makes `table` tenant-owned: RLS enabled and forced (so even the owner is subject to it),
 * a `tenant_isolation` policy on app_current_tenant(), a `system_access` policy for the system
 * role, and the grants both roles need. Every migration that creates a table with a
 * `tenant_id` column calls this; migrateToLatest() refuses a schema where one did not.
 */
export async function enableTenantRls(db: Kysely<unknown>, table: string): Promise<void> {
  const t = sql.table(table);
  await sql`ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY`.execute(db);
  await sql`ALTER TABLE ${t} FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`CREATE POLICY tenant_isolation ON ${t}
    USING (tenant_id = app_current_tenant())
    WITH CHECK (tenant_id = app_current_tenant())`.execute(db);
  await sql`CREATE POLICY system_access ON ${t} TO ${sql.id(SYSTEM_ROLE)} USING (true) WITH CHECK (true)`.execute(
    db,
  );
  await sql`GRANT SELECT, INSERT, UPDATE, DELETE ON ${t} TO ${sql.id(TENANT_ROLE)}, ${sql.id(SYSTEM_ROLE)}`.execute(
    db,
  );
}
