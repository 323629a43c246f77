import Papa from 'papaparse';
import type { RejectedRow } from './run-import';

/**
 * The rejected rows as a CSV to fix and import again: the file's own columns, then the row's
 * line in the file and the API's error text. Cells are written exactly as they came (no
 * formula-escaping quote, which would then be imported as part of the value): they are the
 * user's own file's cells.
 */
export function rejectedRowsCsv(headers: string[], rejected: RejectedRow[]): string {
  const width = headers.length;
  return Papa.unparse({
    fields: [...headers, 'Line in file', 'Import error'],
    data: rejected.map(({ cells, line, error }) => [
      ...Array.from({ length: width }, (_, i) => cells[i] ?? ''),
      String(line),
      error,
    ]),
  });
}
