import type { ServerResponse } from 'node:http';
import { stringify } from 'csv-stringify';
import { cellText } from './cell-text';
import type { ExportContext, ExportWriter } from './export-writer';
import { OutputStream } from './output-stream';

/**
 * RFC 4180 CSV (CRLF, quotes where needed) with a header row of column keys, so a leads
 * export reads back into POST /api/v1/import/leads. A UTF-8 byte order mark makes Excel read
 * non-ASCII names correctly.
 *
 * Formula injection: a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return
 * (or their full-width forms) is prefixed with a single quote (csv-stringify's
 * `escape_formulas`), so a spreadsheet shows it as text instead of evaluating it. The quote
 * is part of the exported value (e.g. a phone number `+1 555` exports as `'+1 555`).
 */
export function csvWriter(res: ServerResponse, ctx: ExportContext): ExportWriter {
  const stringifier = stringify({
    header: true,
    columns: ctx.columns.map((c) => c.key),
    bom: true,
    record_delimiter: 'windows',
    escape_formulas: true,
  });
  const output = new OutputStream(stringifier, res);
  return {
    async write(rows) {
      for (const row of rows) stringifier.write(ctx.columns.map((c) => cellText(row[c.key], c)));
      await output.wait(() => stringifier.writableNeedDrain, [stringifier]);
    },
    async end() {
      stringifier.end();
      await output.finish();
    },
    abort: () => output.abort(),
  };
}
