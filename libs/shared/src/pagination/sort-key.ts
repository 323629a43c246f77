import type { RawBuilder } from 'kysely';

/**
 * A sortable column: the SQL the rows are ordered by (what its index holds) and its type.
 * `nullable` for a column that may be NULL: Postgres sorts NULL after every value ascending and
 * before every value descending (as a btree index holds it), and a row comparison with a NULL
 * is not true, so a cursor page of such a key reads the rows with a value and the NULL rows as
 * two index ranges (see paginateByKeyset).
 */
export interface SortKey {
  expression: RawBuilder<unknown>;
  type: 'text' | 'timestamptz';
  nullable?: boolean;
}
