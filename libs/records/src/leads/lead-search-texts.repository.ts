import type { Trx } from '@crm/shared/db';
import { CompiledQuery, sql } from 'kysely';

/**
 * The lead search index (`crm_lead_search_texts`, migration 0025): each lead's search text,
 * `crm_lead_search_text(crm_leads)`, copied after the lead's write has committed. Written as
 * `crm_system` only (every tenant's leads in one batch; row-level security lets the system role
 * through).
 */

/** Copies the search text of the leads `where` selects (alias `l`) into the index. */
const upsertFrom = (where: string) => `
  INSERT INTO crm_lead_search_texts AS s (lead_id, tenant_id, search_text)
  SELECT l.id, l.tenant_id, crm_lead_search_text(l) FROM crm_leads l WHERE ${where}
  ON CONFLICT (lead_id) DO UPDATE
    SET tenant_id = EXCLUDED.tenant_id, search_text = EXCLUDED.search_text
    WHERE (s.tenant_id, s.search_text) IS DISTINCT FROM (EXCLUDED.tenant_id, EXCLUDED.search_text)`;

/**
 * Every lead's row of the index, for seeders that write leads straight into the table (COPY,
 * INSERT ... SELECT in tests and benchmarks), which no event announces. One statement, run as a
 * role that may write the table (the superuser, or crm_system).
 */
export const FILL_LEAD_SEARCH_TEXTS = upsertFrom('true');

/**
 * Brings the index up to date for these leads (the indexer's batch): re-reads each live lead
 * and upserts its text, and deletes the rows of those that are gone. Idempotent, and the order
 * the ids come in does not matter: only the live rows count.
 *
 * Indexers run one at a time (a transaction-scoped advisory lock): each reads the leads only
 * after the one before has committed, so an older read can never overwrite a newer one. The
 * event of a write is published after the write commits, so the indexer that handles the last
 * write's event reads that write, and so does any that commits after it.
 */
export async function indexLeadSearchTexts(trx: Trx, leadIds: readonly string[]): Promise<void> {
  if (leadIds.length === 0) return;
  await sql`SELECT pg_advisory_xact_lock(hashtext('crm_lead_search_texts'))`.execute(trx);
  await trx.executeQuery(CompiledQuery.raw(upsertFrom('l.id = ANY($1::uuid[])'), [leadIds]));
  await trx
    .deleteFrom('crm_lead_search_texts')
    .where('lead_id', 'in', leadIds)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('crm_leads')
            .select(sql`1`.as('one'))
            .whereRef('crm_leads.id', '=', 'crm_lead_search_texts.lead_id'),
        ),
      ),
    )
    .execute();
}
