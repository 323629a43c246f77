import type { Logger } from 'pino';
import { Writable } from 'node:stream';
import { createLogger } from '../logger';

export interface CapturedLogger {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): Array<Record<string, unknown>>;
  /** Every line written so far, as written. */
  text(): string;
}

/** A logger with the production redaction that writes into memory, for asserting on logs. */
export function captureLogger(level = 'debug'): CapturedLogger {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ name: 'test', level, destination: stream });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
