import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema';
import type { Worker } from '../service/service-definition';
import type { RetentionSweep } from './sweep';

export interface RetentionWorkerOptions {
  /** Pause between two sweeps of every table, in ms. */
  everyMs: number;
  /** Rows per batch (one statement); a partition sweep's batch is one partition. */
  batchSize: number;
  /** Pause between two batches of one table, in ms, so hot paths are not starved. */
  pauseMs: number;
  /**
   * How long start() waits for the first round's prepare steps (RetentionSweep.prepare) before
   * it resolves anyway, in ms (default 15 s): they are bounded by their own statements'
   * timeouts, this bounds the service's start even when the database does not answer.
   */
  prepareWaitMs?: number;
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
 * sweep's prepare step runs (the partitions a table needs ahead), then each sweep removes its
 * rows past their policy a batch at a time (one short statement each, a pause between two),
 * until a batch comes back short. start() resolves once the first prepare steps are done (or
 * after `prepareWaitMs`), so a partitioned table has its partitions before the service's first
 * write. stop() lets the statement in hand finish (a batch commits or fails on its own) and
 * starts no other, cutting a pause short. Replicas may sweep side by side: a batch skips rows
 * another one holds. A failing batch or prepare step is logged and the worker moves on to the
 * next table; the next round tries again.
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

  async function prepare(): Promise<void> {
    for (const sweep of sweeps) {
      if (stopped || !sweep.prepare) continue;
      try {
        const made = await sweep.prepare(deps.db, new Date(now()));
        if (made.length > 0) {
          deps.logger.info({ table: sweep.table, made }, 'retention prepared ahead');
        }
      } catch (err) {
        // Not fatal: the next round tries again (what it makes is made well ahead of need).
        deps.logger.warn({ err, table: sweep.table }, 'retention prepare failed');
      }
    }
  }

  async function sweepTable(sweep: RetentionSweep): Promise<void> {
    const limit = sweep.unit === 'partitions' ? 1 : options.batchSize;
    let removed = 0;
    try {
      while (!stopped) {
        const cutoff = new Date(now() - sweep.keepMs);
        const count = await sweep.sweepBatch(deps.db, cutoff, limit);
        removed += count;
        if (count < limit || stopped) break;
        await pause.for(options.pauseMs);
      }
    } catch (err) {
      // Not fatal: the rows stay until the next round.
      deps.logger.warn({ err, table: sweep.table }, 'retention sweep failed');
    }
    if (removed > 0) {
      deps.logger.info(
        { table: sweep.table, policy: sweep.policy.name, removed },
        sweep.unit === 'partitions'
          ? 'retention sweep dropped partitions past their policy'
          : 'retention sweep removed rows past their policy',
      );
    }
  }

  async function loop(prepared: () => void): Promise<void> {
    try {
      while (!stopped) {
        await prepare();
        prepared();
        for (const sweep of sweeps) {
          if (stopped) break;
          await sweepTable(sweep);
        }
        await pause.for(options.everyMs);
      }
    } finally {
      prepared();
    }
  }

  return {
    name: 'retention',
    async start() {
      if (running || sweeps.length === 0) return;
      let prepared: () => void = () => undefined;
      const firstPrepare = new Promise<void>((resolve) => (prepared = resolve));
      running = loop(prepared);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), options.prepareWaitMs ?? 15_000);
        timer.unref();
      });
      const late = await Promise.race([firstPrepare.then(() => false), waited]);
      clearTimeout(timer);
      if (late) deps.logger.warn('retention: started before its first prepare step finished');
    },
    async stop() {
      stopped = true;
      pause.stop();
      await running;
    },
  };
}
