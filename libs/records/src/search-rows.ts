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
 * `%`, `_` and `\` are themselves, not wildcards.
 */
export function matchesSearch(table: Searchable, q: string) {
  const words = q.trim().replace(/\s+/g, ' ');
  const escaped = words.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<boolean>`${sql.ref(`${table}.search_text`)} LIKE lower(${`%${escaped}%`})`;
}
