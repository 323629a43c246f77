import type { Database } from '@crm/shared/db';
import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';

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
 * `%`, `_` and `\` are themselves, not wildcards. This is what the walk (walkForSearch) tests
 * row by row and what re-checks every row an index nominates (searchCandidates).
 *
 * On the lead view it is the live lead's text, which no index serves. On the contact view it
 * is the text the trigram index holds: the index's condition itself when the index is asked
 * for the whole term, and kept out of the index's reach (`|| ''`) when it is asked for less
 * (nominatingPattern), or Postgres would ask it for the whole term again.
 */
export function matchesSearch(table: Searchable, q: string) {
  const text = sql.ref(`${table}.search_text`);
  if (table === 'crm_leads' || nominatingPattern(q) === likePattern(q)) {
    return sql<boolean>`${text} LIKE lower(${likePattern(q)})`;
  }
  return sql<boolean>`(${text} || '') LIKE lower(${likePattern(q)})`;
}

/**
 * `q` as the condition the search's trigram index serves, added to matchesSearch once the walk
 * has not settled the page: the text holds nominatingPattern(q). It only nominates rows, which
 * matchesSearch re-checks.
 *
 * Contacts: on the text the contacts' trigram index holds; undefined when the pattern is the
 * whole term, which matchesSearch then asks the index for itself.
 *
 * Leads: the leads whose row in the lead search index (migration 0025, filled after commit by
 * crm-api's indexer) holds the pattern and the whole term, as a condition on `crm_leads.id`.
 * matchesSearch re-checks the live lead's text, so a stale search row can hide a lead written
 * a moment ago, never return one that does not match.
 */
export function searchCandidates(table: Searchable, q: string): RawBuilder<boolean> | undefined {
  const nominating = nominatingPattern(q);
  const whole = likePattern(q);
  if (table === 'crm_contacts') {
    return nominating === whole
      ? undefined
      : sql<boolean>`crm_contacts.search_text LIKE lower(${nominating})`;
  }
  // The whole term narrows the index's rows before they are joined to the leads, out of the
  // index's reach (`|| ''`) when the index is asked for less.
  const nominated =
    nominating === whole
      ? sql<boolean>`c.search_text LIKE lower(${whole})`
      : sql<boolean>`c.search_text LIKE lower(${nominating})
        AND (c.search_text || '') LIKE lower(${whole})`;
  return sql<boolean>`crm_leads.id IN (SELECT c.lead_id FROM crm_lead_search_candidates c
    WHERE ${nominated})`;
}

/** Most words a term is nominated by (its longest). */
const MAX_NOMINATING_WORDS = 4;

/**
 * The LIKE pattern the trigram index is asked for: one that every text holding `q` holds, so
 * the index nominates every match (the whole term re-checks them). Which pattern changes what
 * a search costs, never what it finds.
 *
 * The index reads the whole list of rows of each trigram it is asked for and intersects them,
 * so a common trigram costs its list even when the term is rare. For "margaret.hopper" among
 * 1,000,000 contacts the whole term asks for 13 trigrams, among them "  h" and " ho" (any word
 * starting so, in a tenth of the rows): 16 ms for the index alone, against 2.4 ms for
 * `%rga%opp%`, the middle of each name, which nominates 1,321 rows where the 13 trigrams
 * nominate 1,318 (measured). So:
 *
 * - A term of two or more words of three letters or more (a word: a run of letters or digits),
 *   made of letters only, asks for the middle trigram of each, in the term's order, of its
 *   MAX_NOMINATING_WORDS longest words: names, an email's parts and companies are made of
 *   words, each word narrows the rows by itself, and the middle of a word is less shared with
 *   other words than its start or end ("mar" starts Margaret, Mark and Marco; "son" ends
 *   Johnson, Wilson and Thompson).
 * - Any other term asks for all of it: one word alone (one trigram would nominate every word
 *   sharing it), one with words of one or two letters (the trigrams padded by their
 *   neighbours, "  1" or " 48", are then what narrows it), or one with a digit in a word
 *   (where a number or an id tells rows apart, one trigram of it does not: ten digits make few
 *   trigrams, each shared by many phone numbers).
 * - Of an email, the part before the `@` alone, when it has a word of three or more: its domain
 *   ("gmail.com", the company's own) is shared by a large share of the rows (41 ms for a whole
 *   email among 1,000,000 leads, 8 ms for the part before the `@`).
 */
export function nominatingPattern(q: string): string {
  const at = q.indexOf('@');
  const local = at < 0 ? '' : q.slice(0, at);
  const part = wordsOf(local).length > 0 ? local : q;
  const words = wordsOf(part);
  if (words.length < 2 || words.some((word) => !/^\p{L}+$/u.test(word.join('')))) {
    return likePattern(part);
  }
  const longest = new Set(
    [...words].sort((a, b) => b.length - a.length).slice(0, MAX_NOMINATING_WORDS),
  );
  // Letters only: nothing in them to escape.
  const middles = words
    .filter((word) => longest.has(word))
    .map((word) => {
      const i = Math.floor((word.length - 3) / 2);
      return word.slice(i, i + 3).join('');
    });
  return `%${middles.join('%')}%`;
}

/** The words of three or more letters or digits in `text`, each as its characters. */
function wordsOf(text: string): string[][] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? [])
    .map((word) => Array.from(word))
    .filter((word) => word.length >= 3);
}

export function likePattern(q: string): string {
  const words = q.trim().replace(/\s+/g, ' ');
  return `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
