import type { Database } from '@crm/shared/db';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';

/** The tables whose lists take `q`, and the view each is searched through. */
const SEARCH_VIEWS = {
  crm_leads: 'crm_lead_search',
  crm_contacts: 'crm_contact_search',
} as const;
type Searchable = keyof typeof SEARCH_VIEWS;

/**
 * The rows a list reads: the table itself, or, when it searches, the table's search view under
 * the table's name (the view's columns are the table's plus `search_text`; migration 0024 says
 * why a search must go through it: under row-level security the trigram index is out of reach
 * of LIKE). Every other condition of the list is written against the table's name either way.
 */
export function listRows<T extends Searchable>(
  trx: Kysely<Database>,
  table: T,
  searching: boolean,
): SelectQueryBuilder<Database, T, object> {
  if (!searching) return trx.selectFrom(table) as SelectQueryBuilder<Database, T, object>;
  return trx.selectFrom(`${SEARCH_VIEWS[table]} as ${table}`) as unknown as SelectQueryBuilder<
    Database,
    T,
    object
  >;
}

/**
 * `q` as the condition on a search view's `search_text`: the text anywhere in it, ignoring
 * case (lowered by Postgres, as the text was); runs of white space count as one space, and
 * `%`, `_` and `\` are themselves, not wildcards. On the lead view this is the live lead's
 * text, which no index serves: a search that falls back to an index adds leadSearchCandidates.
 */
export function matchesSearch(table: Searchable, q: string) {
  return sql<boolean>`${sql.ref(`${table}.search_text`)} LIKE lower(${likePattern(q)})`;
}

/**
 * `q` as a condition on `crm_leads.id`: the leads whose row in the lead search index (migration
 * 0025, filled after commit by crm-api's indexer) matches, read through its trigram index. It
 * only nominates candidates and always goes with matchesSearch, which re-checks the live text:
 * a stale search row can hide a lead written a moment ago, never return one that does not match.
 */
export function leadSearchCandidates(q: string) {
  return sql<boolean>`crm_leads.id IN (SELECT c.lead_id FROM crm_lead_search_candidates c
    WHERE c.search_text LIKE lower(${likePattern(q)}))`;
}

function likePattern(q: string): string {
  const words = q.trim().replace(/\s+/g, ' ');
  return `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
