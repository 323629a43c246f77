import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';

export type FileFormat = 'ndjson' | 'json' | 'csv';

export function formatOf(file: string): FileFormat {
  if (/\.(ndjson|jsonl)$/i.test(file)) return 'ndjson';
  if (/\.json$/i.test(file)) return 'json';
  if (/\.csv$/i.test(file)) return 'csv';
  throw new Error(`${file}: expected a .ndjson, .jsonl, .json or .csv file`);
}

/**
 * The records of an export file, one at a time: NDJSON and CSV are streamed (a file of any
 * size), JSON (one top-level array) is read whole. CSV takes its header row as field names;
 * an empty cell is left out of the record.
 */
export async function* readRecords(file: string): AsyncGenerator<unknown> {
  const format = formatOf(file);
  if (format === 'json') {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!Array.isArray(parsed)) throw new Error(`${file}: expected a JSON array of records`);
    yield* parsed;
    return;
  }
  if (format === 'ndjson') {
    let line = 0;
    for await (const text of createInterface({
      input: createReadStream(file),
      crlfDelay: Infinity,
    })) {
      line += 1;
      if (text.trim() === '') continue;
      try {
        yield JSON.parse(text);
      } catch {
        throw new Error(`${file}:${line}: not a JSON record`);
      }
    }
    return;
  }
  const rows = createReadStream(file).pipe(parse({ columns: true, bom: true, trim: true }));
  for await (const row of rows as AsyncIterable<Record<string, string>>) {
    yield Object.fromEntries(Object.entries(row).filter(([, value]) => value !== ''));
  }
}

/** Groups records into chunks of `size`. */
export async function* chunksOf<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let chunk: T[] = [];
  for await (const item of items) {
    chunk.push(item);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
