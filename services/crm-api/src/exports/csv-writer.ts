import type { ExportColumn } from './export-columns';
import { cellText, csvCell, csvCellIsVerbatim } from './cell-text';

/** A UTF-8 byte order mark makes Excel read non-ASCII names correctly. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const CRLF = Buffer.from('\r\n');
/** The binary COPY file's signature; then 32-bit flags and the length of a header extension. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const FILE_HEADER_BYTES = SIGNATURE.length + 8;
/**
 * The output goes out in pieces of at least this much: the COPY's chunks are often a few rows,
 * and each write costs a chunked-encoding frame and a syscall at every hop (crm-api, gateway).
 */
const OUTPUT_BYTES = 64 * 1024;
/** Cells shorter than this are copied byte by byte in JS: a native copy call costs more. */
const SHORT_CELL = 64;
/** Postgres's epoch (2000-01-01) in Unix milliseconds: binary times count microseconds from it. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
/** 2^32 microseconds is 4,294,967 ms and 296 µs: splits a time's high word without rounding. */
const HIGH_WORD_MS = 4_294_967;
const HIGH_WORD_REST_US = 296;
const DAY_MS = 86_400_000;
/** The part of toISOString() after the day: `HH:mm:ss.sssZ`. */
const TIME_OF_DAY = '00:00:00.000Z';
/** Days whose text is kept (a few years' worth); the cache starts over when full. */
const MAX_CACHED_DAYS = 4096;

/**
 * RFC 4180 CSV (CRLF, quotes where needed) with a header row of column keys, so a leads
 * export reads back into POST /api/v1/import/leads, after a UTF-8 byte order mark; each cell
 * through csvCell, the one cell rule (formula neutralising included).
 *
 * Fed the bytes of `COPY (...) TO STDOUT (FORMAT binary)` (csvCopyStatement: text columns, and
 * times as binary timestamptz), it writes each row's cells straight from those bytes: a cell
 * csvCell would leave as it is (nearly all) is copied without being decoded. JSON arrives as
 * Postgres writes it and goes through cellText (parsed and re-serialised, as when the driver
 * parsed it), so its text stays what the export always wrote (`{"a":1}`, not Postgres's
 * `{"a": 1}`). Times are cellText's `toISOString()`, see time(). The bytes are those
 * csv-stringify wrote from the driver's rows (a test compares them).
 */
export class CsvFromCopy {
  private readonly kinds: ('json' | 'datetime' | 'text')[];
  private pending: Buffer | undefined;
  private readonly days = new Map<number, Buffer>();
  private fileHeaderRead = false;
  private ended = false;
  private out = Buffer.allocUnsafe(OUTPUT_BYTES * 2);
  private at = 0;

  constructor(private readonly columns: readonly ExportColumn[]) {
    this.kinds = columns.map((c) => (c.kind === 'json' || c.kind === 'datetime' ? c.kind : 'text'));
  }

  /** The byte order mark and the header row. */
  head(): Buffer {
    const header = this.columns.map((c) => csvCell(c.key)).join(',');
    return Buffer.concat([BOM, Buffer.from(header), CRLF]);
  }

  /**
   * Takes the COPY's next chunk; returns the CSV of the whole rows so far (with what an earlier
   * chunk left of a row) once there are at least OUTPUT_BYTES of it, else undefined.
   */
  push(chunk: Buffer): Buffer | undefined {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let pos = this.fileHeaderRead ? 0 : this.readFileHeader(data);
    if (pos < 0) {
      this.pending = data;
      return undefined;
    }
    while (!this.ended) {
      const next = this.row(data, pos);
      if (next < 0) break;
      pos = next;
    }
    if (pos < data.length && !this.ended) this.pending = data.subarray(pos);
    return this.at >= OUTPUT_BYTES ? this.take() : undefined;
  }

  /** The rest of the file; throws when the COPY stopped inside a row or before its end. */
  end(): Buffer {
    if (!this.ended || this.pending)
      throw new Error('the COPY of the export ended before its last row');
    return this.take();
  }

  private take(): Buffer {
    const taken = this.out.subarray(0, this.at);
    this.out = Buffer.allocUnsafe(OUTPUT_BYTES * 2);
    this.at = 0;
    return taken;
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
      const kind = this.kinds[i];
      if (kind === 'text') this.cell(data, p, p + length);
      else if (kind === 'datetime') this.time(data, p, this.columns[i]);
      else this.json(data, p, p + length, this.columns[i]);
      p += length;
    }
    this.byte(0x0d);
    this.byte(0x0a);
    return p;
  }

  /** JSON as the driver gave it to cellText: parsed (`{}` needs no parsing to stay `{}`). */
  private json(data: Buffer, start: number, end: number, column: ExportColumn): void {
    const text = data.toString('utf8', start, end);
    this.text(csvCell(text === '{}' ? text : cellText(JSON.parse(text), column)));
  }

  /**
   * A binary timestamptz (8 bytes: microseconds since 2000-01-01 UTC) as cellText wrote the Date
   * the driver made of it: `toISOString()`, the microseconds dropped (floor, as the driver's
   * parsing did for times before 2000 too); infinity was not a Date but ±Infinity.
   */
  private time(data: Buffer, at: number, column: ExportColumn): void {
    const high = data.readInt32BE(at);
    const low = data.readUInt32BE(at + 4);
    if (high === 0x7fffffff && low === 0xffffffff) return this.timeText(Infinity, column);
    if (high === -0x80000000 && low === 0) return this.timeText(-Infinity, column);
    const ms =
      PG_EPOCH_MS + high * HIGH_WORD_MS + Math.floor((high * HIGH_WORD_REST_US + low) / 1000);
    // toISOString() is the day's text (`2026-01-05T`) and then the time of day, fixed width:
    // the day's part is toISOString()'s own, kept per day; the rest is counted here.
    const day = Math.floor(ms / DAY_MS);
    let prefix = this.days.get(day);
    if (prefix === undefined) {
      const text = Buffer.from(cellText(new Date(day * DAY_MS), column));
      // A year before 0 (`-000001-`) or after 9999 (`+010000-`) is not verbatim for csvCell:
      // such times are not cached but written whole.
      if (!csvCellIsVerbatim(text, 0, text.length)) return this.timeText(new Date(ms), column);
      if (this.days.size >= MAX_CACHED_DAYS) this.days.clear();
      prefix = text.subarray(0, text.length - TIME_OF_DAY.length);
      this.days.set(day, prefix);
    }
    this.room(prefix.length + TIME_OF_DAY.length);
    const out = this.out;
    let o = this.at;
    for (let i = 0; i < prefix.length; i++) out[o++] = prefix[i];
    let rest = ms - day * DAY_MS;
    const milliseconds = rest % 1000;
    rest = (rest - milliseconds) / 1000;
    const seconds = rest % 60;
    rest = (rest - seconds) / 60;
    const minutes = rest % 60;
    const hours = (rest - minutes) / 60;
    out[o++] = 0x30 + Math.floor(hours / 10);
    out[o++] = 0x30 + (hours % 10);
    out[o++] = 0x3a;
    out[o++] = 0x30 + Math.floor(minutes / 10);
    out[o++] = 0x30 + (minutes % 10);
    out[o++] = 0x3a;
    out[o++] = 0x30 + Math.floor(seconds / 10);
    out[o++] = 0x30 + (seconds % 10);
    out[o++] = 0x2e;
    out[o++] = 0x30 + Math.floor(milliseconds / 100);
    out[o++] = 0x30 + (Math.floor(milliseconds / 10) % 10);
    out[o++] = 0x30 + (milliseconds % 10);
    out[o++] = 0x5a;
    this.at = o;
  }

  /** A time written through cellText and csvCell whole (infinity, years before 0). */
  private timeText(value: Date | number, column: ExportColumn): void {
    this.text(csvCell(cellText(value, column)));
  }

  private cell(data: Buffer, start: number, end: number): void {
    if (!csvCellIsVerbatim(data, start, end)) {
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
