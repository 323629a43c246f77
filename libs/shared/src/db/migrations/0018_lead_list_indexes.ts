import { sql, type Kysely } from 'kysely';

/**
 * Indexes that keep the lead list's pages fast at a million leads per tenant
 * (docs/leads-and-deals.md): one `(tenant_id, <sort key>, id)` b-tree per sortBy the list
 * offers, in the order the list reads them (key and id in the same direction), so a page, a
 * cursor's `(key, id) > (last key, last id)` and the capped count are index scans. email is
 * served by the unique `(tenant_id, email)`.
 *
 * They replace the `created_at DESC, id` index (id ran the other way) and the status and source
 * ones (which now end in id, and still serve those filters): an import maintains as many
 * indexes as before. The sorts by updated_at, first_name and last_name are withdrawn rather
 * than indexed, and `q` gets no trigram index: each index costs every import its upkeep, and
 * measured on 10,000-lead inserts a name index cost about a third more database time and a
 * trigram index about three times more, far past the 10% of its speed the import may lose.
 *
 * CREATE INDEX (not CONCURRENTLY: migrations run in a transaction) holds writes to crm_leads
 * while it builds; at a million leads that is seconds to a minute, once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX crm_leads_by_created`.execute(db);
  await sql`DROP INDEX crm_leads_by_status`.execute(db);
  await sql`DROP INDEX crm_leads_by_source`.execute(db);
  await sql`CREATE INDEX crm_leads_by_created_at ON crm_leads (tenant_id, created_at, id)`.execute(
    db,
  );
  await sql`CREATE INDEX crm_leads_by_status ON crm_leads (tenant_id, status, id)`.execute(db);
  await sql`CREATE INDEX crm_leads_by_source ON crm_leads (tenant_id, source, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['crm_leads_by_source', 'crm_leads_by_status', 'crm_leads_by_created_at']) {
    await sql`DROP INDEX ${sql.ref(index)}`.execute(db);
  }
  await sql`CREATE INDEX crm_leads_by_created ON crm_leads (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await sql`CREATE INDEX crm_leads_by_status ON crm_leads (tenant_id, status)`.execute(db);
  await sql`CREATE INDEX crm_leads_by_source ON crm_leads (tenant_id, source)`.execute(db);
}
