import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE } from '../roles';
import { enableTenantRls } from './tenant-rls';

/** The record types a migration tool may push (POST /api/migrate/ingest). */
export const MIGRATION_ENTITIES = ['leads', 'contacts', 'deals', 'products', 'activities'] as const;

/**
 * migrate's two tables:
 *
 * - `migrate_nonces`: every nonce of a verified signed request, recorded once (the primary key
 *   makes two replicas racing on one nonce let exactly one through). Not tenant data: the nonce
 *   is recorded before the body names a tenant. Rows older than the skew window are pruned.
 * - `migration_records`: which platform record a source system's record became, keyed by
 *   (tenant, source system, entity, source id), so a migration can be re-run and a retry never
 *   duplicates. `record_id` is the row in the entity's own table (crm_leads, crm_deals, ...).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE migrate_nonces (
    nonce text PRIMARY KEY CHECK (length(nonce) BETWEEN 1 AND 200),
    seen_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX migrate_nonces_by_seen ON migrate_nonces (seen_at)`.execute(db);
  await sql`GRANT SELECT, INSERT, DELETE ON migrate_nonces TO ${sql.id(SYSTEM_ROLE)}`.execute(db);

  const entities = sql.raw(MIGRATION_ENTITIES.map((e) => `'${e}'`).join(', '));
  await sql`CREATE TABLE migration_records (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    source_system text NOT NULL CHECK (length(source_system) BETWEEN 1 AND 100),
    entity text NOT NULL CHECK (entity IN (${entities})),
    external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 200),
    record_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, source_system, entity, external_id)
  )`.execute(db);
  await enableTenantRls(db, 'migration_records');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS migration_records`.execute(db);
  await sql`DROP TABLE IF EXISTS migrate_nonces`.execute(db);
}
