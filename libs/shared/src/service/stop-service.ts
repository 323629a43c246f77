import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { closeServer } from './http-server';
import type { Worker } from './service-definition';
import { stopWorkers } from './workers';

/** What a running service (or `npm start`, all of them in one process) stops on a signal. */
export interface RunningService {
  /** Each HTTP server with how long its in-flight requests may finish. */
  servers: ReadonlyArray<{ server: Server; timeoutMs: number }>;
  workers: readonly Worker[];
  /**
   * How long the workers' in-flight handlers may finish (SHUTDOWN_TIMEOUT_MS); past it the
   * shutdown goes on without them (their unacknowledged events are delivered again, to
   * another instance or after the restart). Default: the longest of the servers' timeouts;
   * with no server either, unbounded.
   */
  workersTimeoutMs?: number;
  /** Called first: readiness turns false (`ServedService.startDraining`). */
  startDraining?: () => void;
  relay?: { stop(): Promise<void> };
  bus?: { close(): Promise<void> };
  database?: { close(): Promise<void> };
}

const TIMED_OUT = Symbol('timed out');

/** `promise`, or TIMED_OUT once `ms` have passed (the promise itself goes on). */
function within<T>(promise: Promise<T>, ms: number | undefined): Promise<T | typeof TIMED_OUT> {
  if (ms === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The one shutdown order of every service:
 * 1. readiness turns false (`GET /ready` answers 503);
 * 2. at the same time, HTTP drains (no new connections, in-flight requests finish) and the
 *    workers stop (no new events pulled, in-flight handlers finish), each bounded by the
 *    shutdown timeout: a consumer does not go on taking events while requests drain;
 * 3. the outbox relay stops, the bus closes, the pool closes.
 * Each step of 3 needs the ones after it still open, and 2 needs all of 3: a request or a
 * handler may write events and query the database. Every step is attempted whatever happened
 * to the one before; a failure is logged and, once all have run, rethrown. Workers still busy
 * at the timeout are logged and left behind (not a failure: their events are redelivered).
 */
export async function stopService(running: RunningService, logger: Logger): Promise<void> {
  running.startDraining?.();
  const workersTimeoutMs =
    running.workersTimeoutMs ??
    (running.servers.length > 0 ? Math.max(...running.servers.map((s) => s.timeoutMs)) : undefined);
  const failures: unknown[] = [];
  const attempt = async (name: string, step: () => Promise<unknown>) => {
    await step().catch((err: unknown) => {
      failures.push(err);
      logger.warn({ err }, `stopping the ${name} failed`);
    });
  };
  await Promise.all([
    attempt('http servers', () =>
      Promise.all(running.servers.map((s) => closeServer(s.server, s.timeoutMs))),
    ),
    attempt('workers', async () => {
      if (running.workers.length === 0) return;
      const stopped = await within(stopWorkers(running.workers), workersTimeoutMs);
      if (stopped === TIMED_OUT) {
        logger.warn(
          { workers: running.workers.map((w) => w.name), timeoutMs: workersTimeoutMs },
          'workers still busy at the shutdown timeout; going on without them (their unacknowledged events are delivered again)',
        );
      }
    }),
  ]);
  await attempt('outbox relay', async () => running.relay?.stop());
  await attempt('event bus', async () => running.bus?.close());
  await attempt('database pool', async () => running.database?.close());
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, 'several shutdown steps failed');
}
