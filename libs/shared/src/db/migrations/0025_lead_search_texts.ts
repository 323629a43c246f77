import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE, TENANT_ROLE } from '../roles';
import { enableTenantRls } from './tenant-rls';

/**
 * The lead search's trigram index leaves crm_leads for a table of its own, filled after commit.
 *
 * Why: keeping a GIN trigram index (about 62 trigrams a lead) up to date in the writing
 * transaction more than doubled the database time of a 10,000-lead import (~200 ms without it,
 * ~450-550 ms with it); neither `fastupdate = off` nor a bigger pending list helped. So the
 * write only writes the lead, and the search index service (crm-api, `search-index/`) copies
 * each written lead's search text into `crm_lead_search_texts` from its `lead.*` events, after
 * the write has committed.
 *
 * What a search may trust: a search row only nominates candidates; the list re-checks each one
 * against the live lead's text (`crm_lead_search.search_text`), so a stale or orphaned row can
 * never return a lead that does not match. The price is a lag: a lead written a moment ago may
 * be missing from a search that falls back to this index (one matching too few of the newest
 * rows), until the indexer has caught up.
 *
 * The search text is `crm_lead_search_text(crm_leads)`, its one definition: the view's live
 * text, the indexer and the backfill below all call it (the same expression migration 0024
 * indexed: names, full name, email, phone, company, lower-cased).
 *
 * Who reads and writes it: only `crm_system` (the indexer writes every tenant's leads in one
 * batch). Tenants read it through the view `crm_lead_search_candidates`, owned by crm_system and
 * holding `tenant_id = app_current_tenant()` itself, for the reason migration 0024 gives for
 * its views (under row-level security a LIKE can never use the trigram index). The table still
 * gets the tenant policies every tenant table has, but the tenant role's grants on it are
 * revoked: nothing a tenant does writes it. No foreign keys: a lead's deletion must not pay for
 * its search row (the indexer deletes it on `lead.deleted`), and tenants are never deleted
 * (migration 0014).
 *
 * The backfill copies every lead once, in this transaction; at a million leads that and the
 * index build take a minute or so, once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE FUNCTION crm_lead_search_text(l crm_leads) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower(coalesce(l.first_name, '') || ' ' || coalesce(l.last_name, '') || ' ' ||
      l.email || ' ' || coalesce(l.phone, '') || ' ' || coalesce(l.custom_fields->>'company', ''))`.execute(
    db,
  );
  await sql`CREATE OR REPLACE VIEW crm_lead_search AS
    SELECT t.*, crm_lead_search_text(t) AS search_text FROM crm_leads t
     WHERE t.tenant_id = app_current_tenant()`.execute(db);
  await sql`DROP INDEX crm_leads_search`.execute(db);

  await sql`CREATE TABLE crm_lead_search_texts (
    lead_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL,
    search_text text NOT NULL
  )`.execute(db);
  await enableTenantRls(db, 'crm_lead_search_texts');
  await sql`REVOKE ALL ON crm_lead_search_texts FROM ${sql.id(TENANT_ROLE)}`.execute(db);
  await sql`INSERT INTO crm_lead_search_texts (lead_id, tenant_id, search_text)
    SELECT l.id, l.tenant_id, crm_lead_search_text(l) FROM crm_leads l`.execute(db);
  await sql`CREATE INDEX crm_lead_search_texts_trgm ON crm_lead_search_texts
    USING gin (search_text gin_trgm_ops)`.execute(db);

  await sql`CREATE VIEW crm_lead_search_candidates AS
    SELECT s.lead_id, s.search_text FROM crm_lead_search_texts s
     WHERE s.tenant_id = app_current_tenant()`.execute(db);
  // A view's owner needs CREATE on its schema; crm_system holds it only for this hand-over.
  await sql`GRANT CREATE ON SCHEMA public TO ${sql.id(SYSTEM_ROLE)}`.execute(db);
  await sql`ALTER VIEW crm_lead_search_candidates OWNER TO ${sql.id(SYSTEM_ROLE)}`.execute(db);
  await sql`REVOKE CREATE ON SCHEMA public FROM ${sql.id(SYSTEM_ROLE)}`.execute(db);
  await sql`GRANT SELECT ON crm_lead_search_candidates TO ${sql.id(TENANT_ROLE)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP VIEW crm_lead_search_candidates`.execute(db);
  await sql`DROP TABLE crm_lead_search_texts`.execute(db);
  const text = sql.raw(`lower(
  coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || email || ' ' ||
  coalesce(phone, '') || ' ' || coalesce(custom_fields->>'company', ''))`);
  await sql`CREATE INDEX crm_leads_search ON crm_leads USING gin ((${text}) gin_trgm_ops)`.execute(
    db,
  );
  await sql`CREATE OR REPLACE VIEW crm_lead_search AS
    SELECT t.*, ${text} AS search_text FROM crm_leads t
     WHERE t.tenant_id = app_current_tenant()`.execute(db);
  await sql`DROP FUNCTION crm_lead_search_text(crm_leads)`.execute(db);
}
