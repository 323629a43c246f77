import type { RawBuilder } from 'kysely';

/*
 * The shapes an export is made of, apart from the resources that list them: the repository
 * selects these columns and the writers print them, so both import this file and neither
 * imports the other's side (export-resources.ts -> exports.repository.ts -> here).
 */

/** How a value is shown: CSV and PDF print it as text, XLSX writes a typed cell. */
export type ColumnKind = 'text' | 'datetime' | 'date' | 'money' | 'json';

export interface ExportColumn {
  /** The name in `columns`, the CSV header and the row object. */
  key: string;
  /** Header of the XLSX sheet and the PDF table. */
  label: string;
  kind: ColumnKind;
  /** Share of the PDF table's width. */
  pdfWidth: number;
  expr: RawBuilder<unknown>;
  /**
   * A `char(n)` column: its `::text` drops the padding the driver reads, so the CSV takes its
   * text from the type's output instead (csvText).
   */
  padded?: boolean;
}

export type ExportRow = Record<string, unknown>;

/**
 * How a query selects the columns: `values` as the driver parses them (the XLSX and PDF rows),
 * `csv` as the exact text of the CSV's cells before quoting, one text column each (COPY).
 */
export type ExportSelection = 'values' | 'csv';
