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
 * On the contact view the text is the trigram index's own, asked for nominatingPart(q).
 */
export function matchesSearch(table: Searchable, q: string) {
  const text = sql.ref(`${table}.search_text`);
  const nominating = nominatingPart(q);
  if (table === 'crm_leads' || nominating === q) {
    return sql<boolean>`${text} LIKE lower(${likePattern(q)})`;
  }
  // The contacts' text is indexed: the index is asked for the part, and the whole term, kept
  // out of its reach (`|| ''`), re-checks what it finds.
  return sql<boolean>`${text} LIKE lower(${likePattern(nominating)})
    AND (${text} || '') LIKE lower(${likePattern(q)})`;
}

/**
 * `q` as a condition on `crm_leads.id`: the leads whose row in the lead search index (migration
 * 0025, filled after commit by crm-api's indexer) matches, read through its trigram index. It
 * only nominates candidates and always goes with matchesSearch, which re-checks the live text:
 * a stale search row can hide a lead written a moment ago, never return one that does not match.
 */
export function leadSearchCandidates(q: string) {
  const nominating = nominatingPart(q);
  if (nominating === q) {
    return sql<boolean>`crm_leads.id IN (SELECT c.lead_id FROM crm_lead_search_candidates c
    WHERE c.search_text LIKE lower(${likePattern(q)}))`;
  }
  // The index finds the part's rows; the whole term, kept out of the index's reach (`|| ''`),
  // narrows them before they are joined to the leads.
  return sql<boolean>`crm_leads.id IN (SELECT c.lead_id FROM crm_lead_search_candidates c
    WHERE c.search_text LIKE lower(${likePattern(nominating)})
      AND (c.search_text || '') LIKE lower(${likePattern(q)}))`;
}

/**
 * The part of `q` the trigram index is asked for. For an email, the part before the `@`: its
 * domain ("gmail.com", the company's own) is shared by a large share of the rows, and the index
 * reads every row its trigrams are in (41 ms for a full email among 1,000,000 leads, 8 ms for
 * the part before the `@`, measured). Every text holding `q` holds the part, so it nominates no
 * fewer rows than `q` would. The whole term when the part has no word of three letters or
 * digits (a trigram index cannot search for less).
 */
export function nominatingPart(q: string): string {
  const at = q.indexOf('@');
  if (at < 0) return q;
  const local = q.slice(0, at);
  return /[\p{L}\p{N}]{3}/u.test(local) ? local : q;
}

export function likePattern(q: string): string {
  const words = q.trim().replace(/\s+/g, ' ');
  return `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
