import Papa from 'papaparse';

/** A file's first row (the column titles) and every row below it, each cell as text. */
export interface Spreadsheet {
  fileName: string;
  headers: string[];
  rows: string[][];
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const ACCEPTED_FILES = `.csv,.xlsx,text/csv,${XLSX_TYPE}`;

/** The file's format by its name, then its type: a CSV from some systems comes as text/plain. */
export function formatOf(file: { name: string; type: string }): 'csv' | 'xlsx' | null {
  const name = file.name.toLowerCase();
  if (name.endsWith('.xlsx') || file.type === XLSX_TYPE) return 'xlsx';
  if (name.endsWith('.csv') || file.type === 'text/csv') return 'csv';
  return null;
}

/**
 * Reads a CSV (papaparse: quoted fields, line breaks inside quotes, any line end, a byte order
 * mark) or the first sheet of an XLSX file. The XLSX reader is loaded only when such a file is
 * chosen, and its Worker-free build is used: the console's CSP refuses the blob: worker its
 * browser build starts.
 */
export async function readSpreadsheet(file: File): Promise<Spreadsheet> {
  const format = formatOf(file);
  if (!format) throw new Error('Choose a .csv or .xlsx file.');
  const table = format === 'csv' ? await readCsv(file) : await readXlsx(file);
  const [headerRow = [], ...rows] = table.filter((row) => row.some((cell) => cell.trim() !== ''));
  const headers = headerRow.map((title, i) => title.trim() || `Column ${i + 1}`);
  return { fileName: file.name, headers, rows };
}

function readCsv(file: File): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    Papa.parse<string[]>(file, {
      skipEmptyLines: 'greedy',
      complete: (result) => {
        // A quote left open swallows the rest of the file: refuse it rather than import it.
        const fatal = result.errors.find((e) => e.type === 'Quotes');
        if (fatal) {
          reject(
            new Error(`The CSV is malformed at row ${(fatal.row ?? 0) + 1}: ${fatal.message}.`),
          );
        } else {
          resolve(result.data);
        }
      },
      error: (error) => reject(new Error(`The file could not be read: ${error.message}.`)),
    });
  });
}

async function readXlsx(file: File): Promise<string[][]> {
  const { readSheet } = await import('read-excel-file/universal');
  let data;
  try {
    data = await readSheet(file);
  } catch {
    throw new Error('The file is not a readable XLSX workbook.');
  }
  return data.map((row) => row.map(cellText));
}

/** A spreadsheet cell as the API's text fields take it: dates as ISO 8601, numbers as written. */
export function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '';
  if (cell instanceof Date) return cell.toISOString();
  return String(cell);
}
