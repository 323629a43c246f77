import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE, TENANT_ROLE } from '../roles';
import { CONTACT_SEARCH_TEXT } from './0024_record_search';

/**
 * A contact's search text becomes a stored column of crm_contacts (generated from the
 * expression migration 0024 indexed, the one definition), and the contacts' trigram index
 * moves onto it; the search view reads it.
 *
 * Why: the text was computed each time a search read a row, and computing it (five columns
 * joined and lower-cased) costs about 1.5 µs a row, most of it lower(). A search computed it for
 * each of the 2,500 rows it walks (3.7 of the walk's ~7 ms at 1,000,000 contacts) and twice for
 * each row the trigram index nominates (its re-check, then the whole term): with it stored,
 * the walk and the read through the index went from 7.3 to 4.5 and from 8.3 to 5.4 ms
 * (measured in SQL). The row grows by its text, about 70 bytes (194 to 267 MB for 1,200,000
 * contacts).
 *
 * Written with the row, in the writing transaction, as the index on the expression was: a
 * contact created, changed or deleted is found, or no longer found, at once (no lag, unlike the
 * lead search table of migration 0025).
 *
 * The view keeps its columns (the table's, then `search_text`) and its owner. The index on the
 * expression goes first, so that adding the column (a rewrite of the table, holding it) does
 * not rebuild it; at 1,200,000 contacts the rewrite and the new index take about 30 and 20
 * seconds, once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX crm_contacts_search`.execute(db);
  await sql`ALTER TABLE crm_contacts
    ADD COLUMN search_text text GENERATED ALWAYS AS (${CONTACT_SEARCH_TEXT}) STORED`.execute(db);
  await sql`CREATE INDEX crm_contacts_search ON crm_contacts USING gin (search_text gin_trgm_ops)`.execute(
    db,
  );
  await sql`CREATE OR REPLACE VIEW crm_contact_search AS
    SELECT t.* FROM crm_contacts t WHERE t.tenant_id = app_current_tenant()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP VIEW crm_contact_search`.execute(db);
  await sql`DROP INDEX crm_contacts_search`.execute(db);
  await sql`ALTER TABLE crm_contacts DROP COLUMN search_text`.execute(db);
  await sql`CREATE INDEX crm_contacts_search ON crm_contacts
    USING gin ((${CONTACT_SEARCH_TEXT}) gin_trgm_ops)`.execute(db);
  await sql`CREATE VIEW crm_contact_search AS
    SELECT t.*, ${CONTACT_SEARCH_TEXT} AS search_text FROM crm_contacts t
     WHERE t.tenant_id = app_current_tenant()`.execute(db);
  // A view's owner needs CREATE on its schema; crm_system holds it only for this hand-over.
  await sql`GRANT CREATE ON SCHEMA public TO ${sql.id(SYSTEM_ROLE)}`.execute(db);
  await sql`ALTER VIEW crm_contact_search OWNER TO ${sql.id(SYSTEM_ROLE)}`.execute(db);
  await sql`REVOKE CREATE ON SCHEMA public FROM ${sql.id(SYSTEM_ROLE)}`.execute(db);
  await sql`GRANT SELECT ON crm_contact_search TO ${sql.id(TENANT_ROLE)}`.execute(db);
}
