import { sql, type Kysely } from 'kysely';

/**
 * Indexes for crm-api's contact, product and activity lists. The shared page helper orders by
 * the sort column and then `id`, both in the requested direction, so an index
 * (tenant_id, column, id) gives that order read forwards or backwards with no sort step; an
 * index (tenant_id, column DESC, id) does not (its id runs the other way).
 *
 * - contacts sort by `created_at`, `email` or `last_name`: one such index each; `q` is a prefix
 *   of the email, which the `text_pattern_ops` index serves whatever the database's collation;
 * - products by `created_at` (crm_products_by_created, rebuilt ascending) or `sku` (its unique
 *   key, which needs no tie-break);
 * - activities by `occurred_at` (crm_activities_by_occurred, rebuilt ascending), filtered by the
 *   lead, contact or deal they are about: one partial index per link, in list order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX crm_contacts_by_created ON crm_contacts (tenant_id, created_at, id)`.execute(
    db,
  );
  await sql`CREATE INDEX crm_contacts_by_email ON crm_contacts (tenant_id, email, id)`.execute(db);
  await sql`CREATE INDEX crm_contacts_by_email_prefix ON crm_contacts (tenant_id, email text_pattern_ops)
    WHERE email IS NOT NULL`.execute(db);
  await sql`CREATE INDEX crm_contacts_by_last_name ON crm_contacts (tenant_id, last_name, id)`.execute(
    db,
  );
  await sql`DROP INDEX crm_products_by_created`.execute(db);
  await sql`CREATE INDEX crm_products_by_created ON crm_products (tenant_id, created_at, id)`.execute(
    db,
  );
  await sql`DROP INDEX crm_activities_by_occurred`.execute(db);
  await sql`CREATE INDEX crm_activities_by_occurred ON crm_activities (tenant_id, occurred_at, id)`.execute(
    db,
  );
  for (const link of ['lead_id', 'contact_id', 'deal_id']) {
    const column = sql.raw(link);
    const name = sql.raw(`crm_activities_by_${link.replace('_id', '')}`);
    await sql`CREATE INDEX ${name} ON crm_activities (tenant_id, ${column}, occurred_at, id)
      WHERE ${column} IS NOT NULL`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS crm_activities_by_lead, crm_activities_by_contact,
    crm_activities_by_deal, crm_contacts_by_last_name, crm_contacts_by_email_prefix,
    crm_contacts_by_email, crm_contacts_by_created`.execute(db);
  await sql`DROP INDEX crm_activities_by_occurred`.execute(db);
  await sql`CREATE INDEX crm_activities_by_occurred ON crm_activities (tenant_id, occurred_at DESC, id)`.execute(
    db,
  );
  await sql`DROP INDEX crm_products_by_created`.execute(db);
  await sql`CREATE INDEX crm_products_by_created ON crm_products (tenant_id, created_at DESC, id)`.execute(
    db,
  );
}
