import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE, TENANT_ROLE } from '../roles';

/**
 * `q` on the lead and contact lists: one trigram index per table over the text a search
 * matches, and one view per table that the lists read when they search.
 *
 * Why a view: under row-level security Postgres checks a condition that is not leakproof (LIKE
 * and ILIKE are not) only after the policy, row by row, so the tenant role can never use the
 * trigram index and a search at a million leads read the whole tenant (seconds). Each view
 * belongs to `crm_system`, whose policy admits every row, and holds the tenant condition itself
 * (`tenant_id = app_current_tenant()`, the same rule as the `tenant_isolation` policy, from the
 * same transaction setting `withTenant` sets), so a query through it is planned as a whole: the
 * trigram index for a rare term, the sort's index for a common one. The tenant role may only
 * read the views, never write through them; without a tenant set they are empty. They are not
 * `security_barrier` views, which would put the policy's order back: the conditions a query
 * adds are our own SQL, and LIKE raises errors from its pattern only, never from a row.
 *
 * The search text is one lower-cased string: names first (so "ada lovelace" matches the full
 * name), then email, phone and company (a lead's `custom_fields.company`, which an import
 * fills from a "company" column). Each expression is written once here: the index and the
 * view's `search_text` must be the same expression for the index to serve the view.
 *
 * The contacts' email-prefix index goes: the search replaces the prefix match it served.
 *
 * CREATE INDEX (not CONCURRENTLY: migrations run in a transaction) holds writes to the table
 * while it builds; at a million rows that is tens of seconds, once.
 */
const LEAD_SEARCH_TEXT = sql.raw(`lower(
  coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || email || ' ' ||
  coalesce(phone, '') || ' ' || coalesce(custom_fields->>'company', ''))`);
export const CONTACT_SEARCH_TEXT = sql.raw(`lower(
  coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' ||
  coalesce(phone, '') || ' ' || coalesce(company, ''))`);

const SEARCHES = [
  {
    table: 'crm_leads',
    view: 'crm_lead_search',
    index: 'crm_leads_search',
    text: LEAD_SEARCH_TEXT,
  },
  {
    table: 'crm_contacts',
    view: 'crm_contact_search',
    index: 'crm_contacts_search',
    text: CONTACT_SEARCH_TEXT,
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  await sql`DROP INDEX crm_contacts_by_email_prefix`.execute(db);
  for (const { table, view, index, text } of SEARCHES) {
    await sql`CREATE INDEX ${sql.id(index)} ON ${sql.id(table)} USING gin ((${text}) gin_trgm_ops)`.execute(
      db,
    );
    await sql`CREATE VIEW ${sql.id(view)} AS
      SELECT t.*, ${text} AS search_text FROM ${sql.id(table)} t
      WHERE t.tenant_id = app_current_tenant()`.execute(db);
    // A view's owner needs CREATE on its schema; crm_system holds it only for this hand-over.
    await sql`GRANT CREATE ON SCHEMA public TO ${sql.id(SYSTEM_ROLE)}`.execute(db);
    await sql`ALTER VIEW ${sql.id(view)} OWNER TO ${sql.id(SYSTEM_ROLE)}`.execute(db);
    await sql`REVOKE CREATE ON SCHEMA public FROM ${sql.id(SYSTEM_ROLE)}`.execute(db);
    await sql`GRANT SELECT ON ${sql.id(view)} TO ${sql.id(TENANT_ROLE)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { view, index } of SEARCHES) {
    await sql`DROP VIEW ${sql.id(view)}`.execute(db);
    await sql`DROP INDEX ${sql.id(index)}`.execute(db);
  }
  await sql`CREATE INDEX crm_contacts_by_email_prefix ON crm_contacts (tenant_id, email text_pattern_ops)
    WHERE email IS NOT NULL`.execute(db);
}
