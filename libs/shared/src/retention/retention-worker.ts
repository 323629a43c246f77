import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema';
import type { Worker } from '../service/service-definition';
import type { RetentionSweep } from './sweep';

export interface RetentionWorkerOptions {
  /** Pause between two sweeps of every table, in ms. */
  everyMs: number;
  /** Rows per batch (one statement). */
  batchSize: number;
  /** Pause between two batches of one table, in ms, so hot paths are not starved. */
  pauseMs: number;
  /** The clock (tests move it). */
  now?: () => number;
}

/** A pause that stop() cuts short. */
class Pause {
  private wake: (() => void) | undefined;
  private stopped = false;

  for(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(resolve), ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        this.end(resolve);
      };
    });
  }

  private end(resolve: () => void): void {
    this.wake = undefined;
    resolve();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}

/**
 * The one worker a service runs for the tables it owns: at start, then every `everyMs`, each
 * sweep removes its rows past their policy a batch at a time (one short statement each, a
 * pause between two), until a batch comes back short. stop() lets the batch in hand finish
 * (its statement commits or fails on its own) and starts no other, cutting a pause short.
 * Replicas may sweep side by side: a batch skips rows another one holds. A failing batch is
 * logged and the sweep moves on to the next table; the next round tries again.
 */
export function retentionWorker(
  deps: { db: Kysely<Database>; logger: Logger },
  sweeps: readonly RetentionSweep[],
  options: RetentionWorkerOptions,
): Worker {
  const now = options.now ?? Date.now;
  const pause = new Pause();
  let stopped = false;
  let running: Promise<void> | undefined;

  async function sweepTable(sweep: RetentionSweep): Promise<void> {
    let removed = 0;
    try {
      while (!stopped) {
        const cutoff = new Date(now() - sweep.keepMs);
        const count = await sweep.sweepBatch(deps.db, cutoff, options.batchSize);
        removed += count;
        if (count < options.batchSize || stopped) break;
        await pause.for(options.pauseMs);
      }
    } catch (err) {
      // Not fatal: the rows stay until the next round.
      deps.logger.warn({ err, table: sweep.table }, 'retention sweep failed');
    }
    if (removed > 0) {
      deps.logger.info(
        { table: sweep.table, policy: sweep.policy.name, removed },
        'retention sweep removed rows past their policy',
      );
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      for (const sweep of sweeps) {
        if (stopped) break;
        await sweepTable(sweep);
      }
      await pause.for(options.everyMs);
    }
  }

  return {
    name: 'retention',
    async start() {
      if (running || sweeps.length === 0) return;
      running = loop();
    },
    async stop() {
      stopped = true;
      pause.stop();
      await running;
    },
  };
}
