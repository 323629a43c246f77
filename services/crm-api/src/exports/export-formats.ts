import type { ServerResponse } from 'node:http';
import { csvWriter } from './csv-writer';
import type { ExportContext, ExportWriter } from './export-writer';
import { pdfWriter } from './pdf-writer';
import { xlsxWriter } from './xlsx-writer';

export interface ExportFormat {
  name: 'csv' | 'xlsx' | 'pdf';
  extension: string;
  contentType: string;
  open(res: ServerResponse, ctx: ExportContext): ExportWriter;
}

export const EXPORT_FORMATS: Record<ExportFormat['name'], ExportFormat> = {
  csv: { name: 'csv', extension: 'csv', contentType: 'text/csv; charset=utf-8', open: csvWriter },
  xlsx: {
    name: 'xlsx',
    extension: 'xlsx',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    open: xlsxWriter,
  },
  pdf: { name: 'pdf', extension: 'pdf', contentType: 'application/pdf', open: pdfWriter },
};
