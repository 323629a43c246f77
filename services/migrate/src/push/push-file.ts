import { createWriteStream } from 'node:fs';
import { chunksOf, readRecords } from './read-records';
import { pushChunk, type PushTarget } from './push-chunk';

export interface PushOptions extends PushTarget {
  file: string;
  /** Records per signed request (at most the server's MIGRATE_MAX_RECORDS). */
  chunkSize: number;
  /** Where refused records go, one JSON line each: `{ index, error, record }`. */
  failedFile: string;
}

export interface PushSummary {
  received: number;
  created: number;
  updated: number;
  failed: number;
  seconds: number;
}

export interface Progress {
  update(done: number, ratePerSecond: number): void;
  note(text: string): void;
  end(): void;
}

/**
 * Streams an export file to POST /api/migrate/ingest in signed chunks, one after another, and
 * writes every refused record (with its position in the file and the reason) to `failedFile`.
 */
export async function pushFile(options: PushOptions, progress: Progress): Promise<PushSummary> {
  const started = performance.now();
  const summary: PushSummary = { received: 0, created: 0, updated: 0, failed: 0, seconds: 0 };
  const failedOut = createWriteStream(options.failedFile);
  try {
    for await (const chunk of chunksOf(readRecords(options.file), options.chunkSize)) {
      const answer = await pushChunk(options, chunk, (attempt, why, waitMs) =>
        progress.note(`retry ${attempt} in ${(waitMs / 1000).toFixed(1)} s (${why})`),
      );
      for (const { index, error } of answer.errors) {
        failedOut.write(
          `${JSON.stringify({ index: summary.received + index, error, record: chunk[index] })}\n`,
        );
      }
      summary.received += chunk.length;
      summary.created += answer.created;
      summary.updated += answer.updated;
      summary.failed += answer.failed;
      const seconds = (performance.now() - started) / 1000;
      progress.update(summary.received, summary.received / seconds);
    }
  } finally {
    progress.end();
    await new Promise((resolve) => failedOut.end(resolve));
  }
  summary.seconds = Number(((performance.now() - started) / 1000).toFixed(2));
  return summary;
}
