import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** How often a stalled batch loop looks again even without a 'drain' it could wake on. */
const RECHECK_MS = 100;

/**
 * The bytes of one export on their way to the response: `source` is piped into `res` with
 * backpressure, and the batch loop waits on it between batches so a slow client slows the
 * cursor instead of filling memory.
 */
export class OutputStream {
  /** Settles when the last byte was handed to the response, or with why it never will be. */
  readonly done: Promise<void>;
  private failure: Error | undefined;

  constructor(
    readonly source: Readable,
    private readonly res: ServerResponse,
  ) {
    this.done = pipeline(source, res);
    // Observed here and re-thrown by wait()/finish(): never an unhandled rejection.
    this.done.catch((err: Error) => {
      this.failure = err;
    });
  }

  /** A PassThrough to hand to libraries that write into a stream of their own choosing. */
  static passThrough(res: ServerResponse): OutputStream {
    return new OutputStream(new PassThrough(), res);
  }

  /**
   * Resolves once `backlogged()` is false. Re-checked on each 'drain' of the response or of
   * `wakeOn`, and every RECHECK_MS in case a drain came before we listened. Rejects as soon as
   * the output fails or the client goes away.
   */
  async wait(backlogged: () => boolean, wakeOn: EventEmitter[] = []): Promise<void> {
    for (;;) {
      this.throwIfFailed();
      if (!backlogged()) return;
      await Promise.race([this.done, this.drainOrTimeout([this.res, ...wakeOn])]);
    }
  }

  /**
   * `work` (e.g. a library finishing its file into `source`), or the output's failure if that
   * comes first: work that writes into a destroyed stream may never settle on its own.
   */
  async unlessFailed<T>(work: Promise<T>): Promise<T> {
    this.throwIfFailed();
    return Promise.race([work, this.done.then(() => work)]);
  }

  /** Waits for the response to finish; rejects when it did not. */
  async finish(): Promise<void> {
    await this.done;
  }

  /** Stops everything: the client sees a broken transfer, never a complete-looking file. */
  abort(): void {
    this.source.destroy();
    this.res.destroy();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
    if (this.res.destroyed) throw new ClientGoneError();
  }

  private drainOrTimeout(emitters: EventEmitter[]): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        for (const emitter of emitters) emitter.off('drain', wake);
        resolve();
      };
      const timer = setTimeout(wake, RECHECK_MS);
      for (const emitter of emitters) emitter.on('drain', wake);
    });
  }
}

/** The client closed the connection before the export was complete. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client went away before the export was complete');
    this.name = 'ClientGoneError';
  }
}

/** True for the ways a pipeline reports that its destination (the client) closed early. */
export function isClientGone(err: unknown, res: ServerResponse): boolean {
  if (err instanceof ClientGoneError) return true;
  const code = (err as { code?: unknown } | undefined)?.code;
  return res.destroyed && (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET');
}
