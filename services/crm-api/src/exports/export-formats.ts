import type { ServerResponse } from 'node:http';
import type { ExportContext, ExportWriter } from './export-writer';
import { pdfWriter } from './pdf-writer';
import { xlsxWriter } from './xlsx-writer';

interface FormatFile {
  name: 'csv' | 'xlsx' | 'pdf';
  extension: string;
  contentType: string;
}

/**
 * How a format gets its rows: `copy` from Postgres's COPY, as bytes (the CSV: CsvFromCopy);
 * `rows` as parsed rows in batches from a cursor, into the format's writer.
 */
export type ExportFormat = FormatFile &
  (
    { feed: 'copy' } | { feed: 'rows'; open(res: ServerResponse, ctx: ExportContext): ExportWriter }
  );

export const EXPORT_FORMATS: Record<ExportFormat['name'], ExportFormat> = {
  csv: { name: 'csv', extension: 'csv', contentType: 'text/csv; charset=utf-8', feed: 'copy' },
  xlsx: {
    name: 'xlsx',
    extension: 'xlsx',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    feed: 'rows',
    open: xlsxWriter,
  },
  pdf: {
    name: 'pdf',
    extension: 'pdf',
    contentType: 'application/pdf',
    feed: 'rows',
    open: pdfWriter,
  },
};
