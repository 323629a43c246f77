import type { Worker, WorkerDeps } from '@crm/shared/service';
import type { Pool } from 'pg';
import { deleteCountersExpiredBefore } from './rate-limit-counters.repository';

/** How often the gateway deletes rate-limit counters whose window ended long ago. */
export const SWEEP_EVERY_MS = 5 * 60_000;
/** A counter is deleted once its window has been over for this long. */
export const KEEP_EXPIRED_MS = 60 * 60_000;

/** Deletes the counters whose window ended before `now - KEEP_EXPIRED_MS`; returns how many. */
export function deleteExpiredCounters(pool: Pool, now = Date.now()): Promise<number> {
  return deleteCountersExpiredBefore(pool, now - KEEP_EXPIRED_MS);
}

/**
 * Deletes the rate_limits rows of windows that ended over an hour ago (keys not seen since,
 * such as a client IP that went away), at start and then every SWEEP_EVERY_MS; a key seen again
 * simply starts a new window. Replicas may sweep side by side.
 *
 * rate-limiter-flexible would do this itself with a timer per limiter that nothing stops: each
 * one kept its limiter, pool and app reachable for five minutes after they were closed (in the
 * test run, the whole module graph of every test file that signed in, ~90 MB a file). One sweep
 * per gateway, with a life cycle (the service definition's `workers`), replaces them.
 */
export function expiredCountersWorker(
  deps: Pick<WorkerDeps, 'pool' | 'logger'>,
  everyMs = SWEEP_EVERY_MS,
): Worker {
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    if (sweeping) return;
    sweeping = deleteExpiredCounters(deps.pool)
      .then(
        () => undefined,
        // Not fatal: the rows stay until the next sweep.
        (err: unknown) => deps.logger.warn({ err }, 'deleting expired rate-limit counters failed'),
      )
      .finally(() => (sweeping = undefined));
  };
  return {
    name: 'expired-rate-limit-counters',
    async start() {
      sweep();
      timer = setInterval(sweep, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
