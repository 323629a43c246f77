import { sql, type Kysely } from 'kysely';

/**
 * `migration_records` by the platform record a source record became: migrate asks which source
 * id of a system a lead was migrated as (is the lead that holds an email mapped from this source
 * under another id?) for a whole request's leads at once, which the primary key, led by the
 * source id, cannot answer without reading every mapping of the source.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX migration_records_by_record
    ON migration_records (tenant_id, source_system, entity, record_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS migration_records_by_record`.execute(db);
}
