import { sql, type Kysely } from 'kysely';

/**
 * Indexes for crm-api's form list, which pages by keyset like the other lists: the shared page
 * helper orders by the sort column and then `id`, both in the requested direction, so each
 * offered sort has a `(tenant_id, column, id)` index read forwards or backwards with no sort
 * step, and a cursor's `(column, id) > (last value, last id)` is one range of it. `slug` is
 * served by the table's unique `(tenant_id, slug)`.
 *
 * CREATE INDEX (not CONCURRENTLY: migrations run in a transaction) holds writes to the table
 * while it builds; a tenant has tens of forms, so that is a moment.
 */
const INDEXES = [
  ['crm_web_forms_by_created', 'created_at'],
  ['crm_web_forms_by_updated', 'updated_at'],
  ['crm_web_forms_by_name', 'name'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, column] of INDEXES) {
    await sql`CREATE INDEX ${sql.id(name)} ON crm_web_forms (tenant_id, ${sql.id(column)}, id)`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
}
