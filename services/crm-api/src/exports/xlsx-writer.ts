import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type ExcelJS from 'exceljs';
import { cellText } from './cell-text';
import type { ExportColumn } from './export-columns';
import type { ExportContext, ExportWriter } from './export-writer';
import { OutputStream } from './output-stream';

/**
 * exceljs is loaded on the first XLSX export, not at start-up: it holds about 28 MB that an
 * idle crm-api (or one that never exports a spreadsheet) has no use for.
 */
function loadExcelJs(): typeof ExcelJS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return require('exceljs') as typeof ExcelJS;
}

/** Sheet bytes allowed to wait for the zip before the batch loop pauses. */
const MAX_SHEET_BACKLOG_BYTES = 1024 * 1024;

interface StreamState {
  length: number;
}
/** The parts of exceljs 4's worksheet stream (StreamBuf) and its consumers we read. */
interface SheetStream {
  buffers?: { length: number }[];
  pipes?: (EventEmitter & { _writableState?: StreamState; _readableState?: StreamState })[];
}

/**
 * exceljs writes a committed row into the sheet's own buffer and hands it on to the zip
 * without waiting, so the response's backpressure never reaches row.commit(). This measures
 * what is still waiting between the sheet and the zip; the batch loop pauses while it is
 * large. It reads exceljs 4 internals: should an upgrade change them, it reports 0, XLSX
 * exports stop pausing, and the test "xlsx: a paused download holds its cursor open" fails.
 */
function sheetBacklog(sheet: ExcelJS.Worksheet): { bytes: number; consumers: EventEmitter[] } {
  const stream = (sheet as unknown as { stream?: SheetStream }).stream;
  const consumers = Array.isArray(stream?.pipes) ? stream.pipes : [];
  let bytes = 0;
  for (const buffer of Array.isArray(stream?.buffers) ? stream.buffers : []) bytes += buffer.length;
  for (const pipe of consumers) {
    bytes += (pipe._writableState?.length ?? 0) + (pipe._readableState?.length ?? 0);
  }
  return { bytes, consumers };
}

/** A typed cell: times and dates as Excel dates (UTC), money as a number, JSON as text. */
function cellValue(value: unknown, column: ExportColumn): ExcelJS.CellValue {
  if (value === null || value === undefined) return null;
  if (column.kind === 'money') {
    const amount = Number(value);
    return Number.isFinite(amount) ? amount : String(value);
  }
  if (column.kind === 'datetime' && value instanceof Date) return value;
  // A calendar date ('YYYY-MM-DD') as that day in an Excel date cell, so it sorts and filters.
  if (column.kind === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(String(value))) {
    return new Date(`${String(value)}T00:00:00.000Z`);
  }
  // Plain strings are always text cells in XLSX, never formulas: no quote prefix needed.
  return cellText(value, column);
}

const NUMBER_FORMATS: Partial<Record<ExportColumn['kind'], string>> = {
  datetime: 'yyyy-mm-dd hh:mm:ss',
  date: 'yyyy-mm-dd',
  money: '#,##0.00',
};

/**
 * XLSX through exceljs's streaming WorkbookWriter: one sheet, a bold frozen header row of
 * column labels, rows committed (and so released) batch by batch, inline strings (no shared
 * string table growing with the file).
 */
export function xlsxWriter(res: ServerResponse, ctx: ExportContext): ExportWriter {
  const output = OutputStream.passThrough(res);
  const { stream } = loadExcelJs();
  const workbook = new stream.xlsx.WorkbookWriter({
    stream: output.source,
    useStyles: true,
    useSharedStrings: false,
  });
  workbook.creator = ctx.tenantName;
  workbook.created = ctx.generatedAt;
  const sheet = workbook.addWorksheet(ctx.resource.title, {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  sheet.columns = ctx.columns.map((c) => ({
    header: c.label,
    key: c.key,
    width: Math.round(c.pdfWidth * 9),
    style: NUMBER_FORMATS[c.kind] ? { numFmt: NUMBER_FORMATS[c.kind] } : {},
  }));
  const header = sheet.getRow(1);
  header.font = { bold: true };
  header.commit();
  return {
    async write(rows) {
      for (const row of rows) {
        sheet.addRow(ctx.columns.map((c) => cellValue(row[c.key], c))).commit();
      }
      await output.wait(
        () => sheetBacklog(sheet).bytes > MAX_SHEET_BACKLOG_BYTES,
        [...sheetBacklog(sheet).consumers],
      );
    },
    async end() {
      sheet.commit();
      await output.unlessFailed(workbook.commit());
      await output.finish();
    },
    abort: () => output.abort(),
  };
}
