import type { ExportColumn } from './export-resources';
import { cellText, csvCell, csvCellIsVerbatim } from './cell-text';

/** A UTF-8 byte order mark makes Excel read non-ASCII names correctly. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const CRLF = Buffer.from('\r\n');
/** The binary COPY file's signature; then 32-bit flags and the length of a header extension. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const FILE_HEADER_BYTES = SIGNATURE.length + 8;
/** Room the output starts with for each input chunk; it grows when a chunk needs more. */
const OUTPUT_BYTES = 64 * 1024;
/** Cells shorter than this are copied byte by byte in JS, faster than a native copy call. */
const SHORT_CELL = 64;

/**
 * RFC 4180 CSV (CRLF, quotes where needed) with a header row of column keys, so a leads
 * export reads back into POST /api/v1/import/leads, after a UTF-8 byte order mark; each cell
 * through csvCell, the one cell rule (formula neutralising included).
 *
 * Fed the bytes of `COPY (...) TO STDOUT (FORMAT binary)` over text columns (csvCopyStatement),
 * it writes each row's cells straight from those bytes: a cell csvCell would leave as it is
 * (nearly all) is copied without being decoded. JSON arrives as Postgres writes it and goes
 * through cellText (parsed and re-serialised, as when the driver parsed it), so its text stays
 * what the export always wrote (`{"a":1}`, not Postgres's `{"a": 1}`).
 */
export class CsvFromCopy {
  private readonly json: boolean[];
  private pending: Buffer | undefined;
  private fileHeaderRead = false;
  private ended = false;
  private out = Buffer.allocUnsafe(OUTPUT_BYTES);
  private at = 0;

  constructor(private readonly columns: readonly ExportColumn[]) {
    this.json = columns.map((c) => c.kind === 'json');
  }

  /** The byte order mark and the header row. */
  head(): Buffer {
    const header = this.columns.map((c) => csvCell(c.key)).join(',');
    return Buffer.concat([BOM, Buffer.from(header), CRLF]);
  }

  /** The CSV of the whole rows in `chunk` (with what an earlier chunk left of a row). */
  push(chunk: Buffer): Buffer {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let pos = this.fileHeaderRead ? 0 : this.readFileHeader(data);
    if (pos < 0) {
      this.pending = data;
      return Buffer.alloc(0);
    }
    this.out = Buffer.allocUnsafe(Math.max(OUTPUT_BYTES, data.length * 2));
    this.at = 0;
    while (!this.ended) {
      const next = this.row(data, pos);
      if (next < 0) break;
      pos = next;
    }
    if (pos < data.length && !this.ended) this.pending = data.subarray(pos);
    return this.out.subarray(0, this.at);
  }

  /** Throws when the COPY stopped inside a row or before its end marker. */
  end(): void {
    if (!this.ended || this.pending)
      throw new Error('the COPY of the export ended before its last row');
  }

  /** Where the rows start, or -1 while the file header is not all here. */
  private readFileHeader(data: Buffer): number {
    if (data.length < FILE_HEADER_BYTES) return -1;
    if (!data.subarray(0, SIGNATURE.length).equals(SIGNATURE))
      throw new Error('the export expected a binary COPY');
    const start = FILE_HEADER_BYTES + data.readUInt32BE(SIGNATURE.length + 4);
    if (data.length < start) return -1;
    this.fileHeaderRead = true;
    return start;
  }

  /**
   * Writes the row at `pos` and returns where the next one starts; -1 (and nothing written)
   * when the row is not all in `data` yet.
   */
  private row(data: Buffer, pos: number): number {
    if (pos + 2 > data.length) return -1;
    const fields = data.readInt16BE(pos);
    if (fields === -1) {
      this.ended = true;
      return pos + 2;
    }
    const rowStart = this.at;
    let p = pos + 2;
    for (let i = 0; i < fields; i++) {
      if (p + 4 > data.length) {
        this.at = rowStart;
        return -1;
      }
      const length = data.readInt32BE(p);
      p += 4;
      if (i > 0) this.byte(0x2c);
      if (length === -1) continue; // NULL: an empty cell
      if (p + length > data.length) {
        this.at = rowStart;
        return -1;
      }
      this.cell(data, p, p + length, this.json[i] ? this.columns[i] : undefined);
      p += length;
    }
    this.byte(0x0d);
    this.byte(0x0a);
    return p;
  }

  private cell(data: Buffer, start: number, end: number, json: ExportColumn | undefined): void {
    if (json) {
      const text = data.toString('utf8', start, end);
      this.text(csvCell(text === '{}' ? text : cellText(JSON.parse(text), json)));
    } else if (!csvCellIsVerbatim(data, start, end)) {
      this.text(csvCell(data.toString('utf8', start, end)));
    } else {
      this.room(end - start);
      if (end - start < SHORT_CELL) {
        const out = this.out;
        let at = this.at;
        for (let i = start; i < end; i++) out[at++] = data[i];
        this.at = at;
      } else {
        this.at += data.copy(this.out, this.at, start, end);
      }
    }
  }

  private text(value: string): void {
    this.room(value.length * 3);
    this.at += this.out.write(value, this.at, 'utf8');
  }

  private byte(value: number): void {
    this.room(1);
    this.out[this.at++] = value;
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + bytes));
    this.out.copy(bigger, 0, 0, this.at);
    this.out = bigger;
  }
}
