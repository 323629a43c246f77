import { sql } from 'kysely';
import { sha256Hex } from '../crypto';

const MARK = '/* prepared statement */ ';

/**
 * Put in front of a statement's SQL to have Postgres keep it prepared on each connection that
 * runs it (a named statement, named by its text): later runs skip parsing, and once Postgres
 * finds its generic plan no worse than the custom ones, planning too. For a long statement on a
 * hot path whose text takes few forms (its values all parameters): each form is kept once per
 * pooled connection for the connection's life. The lead timeline's statement (a record and ten
 * sources) spent ~4 ms per run parsing and planning against ~0.6 ms running once prepared.
 */
export const PREPARED = sql.raw(MARK);

/** The server-side name of a marked statement; undefined for any other. */
export function preparedStatementName(text: string): string | undefined {
  if (!text.startsWith(MARK)) return undefined;
  // Postgres names are at most 63 bytes.
  return `crm_${sha256Hex(text).slice(0, 40)}`;
}
