import type { ExportColumn } from './export-columns';

/**
 * A cell as text, lossless: times in ISO 8601 UTC, money and dates as stored, JSON as JSON,
 * no value as an empty cell. What the CSV carries.
 */
export function cellText(value: unknown, column: ExportColumn): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (column.kind === 'json') return JSON.stringify(value);
  return String(value);
}

/** `12500.5` -> `12,500.50` without going through a float (numeric(16,2) exceeds 2^53 cents). */
function groupedMoney(value: string): string {
  const [whole, fraction = ''] = value.split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction.padEnd(2, '0')}`;
}

/** A cell for people to read (the PDF): minutes in UTC, grouped money, the rest as the CSV. */
export function readableText(value: unknown, column: ExportColumn): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (column.kind === 'money' && /^\d+(\.\d+)?$/.test(String(value))) {
    return groupedMoney(String(value));
  }
  return cellText(value, column);
}

/**
 * Cells a spreadsheet would evaluate as a formula: those starting with one of these (or its
 * full-width form) get a leading single quote, so the cell shows as text.
 */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];
/**
 * What makes a cell quoted: the delimiter, the quote, or any line break (CR or LF, alone or
 * as CRLF). A lone LF left unquoted, as csv-stringify with a `windows` record delimiter left
 * it, ends the row for Excel, papaparse (the console's import) and any reader that splits
 * records on a bare LF: a note with a line break became two broken rows there.
 */
function needsQuotes(text: string): boolean {
  return /[,"\r\n]/.test(text);
}

/**
 * One cell of the CSV, the file's only cell rule (the quoting and formula neutralising
 * csv-stringify applied with `escape_formulas`, kept byte for byte): a cell starting like a
 * formula is prefixed with `'` (so a phone number `+1 555` exports as `'+1 555`); a cell that
 * needsQuotes is quoted, its quotes doubled. The quoting is judged on the text before the
 * prefix, which adds no character that would need it.
 */
export function csvCell(text: string): string {
  if (text === '') return '';
  const quote = needsQuotes(text);
  const value = FORMULA_STARTS.includes(text[0]) ? `'${text}` : text;
  return quote ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The first UTF-8 byte of each formula start (the full-width ones share 0xEF). */
const FORMULA_FIRST_BYTES = new Uint8Array(256);
for (const c of FORMULA_STARTS) FORMULA_FIRST_BYTES[Buffer.from(c)[0]] = 1;
/**
 * Bytes after which needsQuotes holds. All ASCII: they never occur inside a multi-byte
 * character.
 */
const QUOTE_TRIGGER_BYTES = new Uint8Array(256);
for (const c of [',', '"', '\r', '\n']) QUOTE_TRIGGER_BYTES[c.charCodeAt(0)] = 1;

/**
 * True when csvCell would leave the UTF-8 text in `bytes[start, end)` as it is, judged on the
 * bytes without decoding them (the fast path of a million-row export). Errs only towards false:
 * a cell starting with any 0xEF character is handed to csvCell to decide.
 */
export function csvCellIsVerbatim(bytes: Uint8Array, start: number, end: number): boolean {
  if (start === end) return true;
  if (FORMULA_FIRST_BYTES[bytes[start]] === 1) return false;
  for (let i = start; i < end; i++) if (QUOTE_TRIGGER_BYTES[bytes[i]] === 1) return false;
  return true;
}
