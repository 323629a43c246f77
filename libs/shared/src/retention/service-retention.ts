import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Worker, WorkerDeps } from '../service/service-definition';
import { retentionHealthCheck } from './retention-check';
import { retentionWorker } from './retention-worker';
import type { RetentionSweep } from './sweep';

/** The sweep settings (serviceEnv: every service reads them). */
export interface RetentionSweepConfig {
  RETENTION_SWEEP_EVERY_MS: number;
  RETENTION_BATCH_SIZE: number;
  RETENTION_BATCH_PAUSE_MS: number;
  RETENTION_BEHIND_AFTER_MINUTES: number;
}

/**
 * A service's retention, from its sweeps and config: the worker its definition runs and the
 * check its /health adds, over the same sweeps so they cannot disagree.
 */
export function serviceRetention(config: RetentionSweepConfig, sweeps: readonly RetentionSweep[]) {
  return {
    sweeps,
    worker: (deps: Pick<WorkerDeps, 'db' | 'logger'>): Worker =>
      retentionWorker(deps, sweeps, {
        everyMs: config.RETENTION_SWEEP_EVERY_MS,
        batchSize: config.RETENTION_BATCH_SIZE,
        pauseMs: config.RETENTION_BATCH_PAUSE_MS,
      }),
    healthCheck: (db: Kysely<Database>) =>
      retentionHealthCheck(db, sweeps, { graceMs: config.RETENTION_BEHIND_AFTER_MINUTES * 60_000 }),
  };
}
