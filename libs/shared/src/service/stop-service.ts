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
  relay?: { stop(): Promise<void> };
  bus?: { close(): Promise<void> };
  database?: { close(): Promise<void> };
}

/**
 * The one shutdown order of every service: drain HTTP (no new requests, in-flight ones
 * finish), stop the workers (no new messages, in-flight handlers finish), stop the outbox
 * relay, close the bus, close the pool. Each step needs the ones after it still open: a request
 * or a handler may write events and query the database. Every step is attempted whatever
 * happened to the one before; a failure is logged and, once all have run, rethrown.
 */
export async function stopService(running: RunningService, logger: Logger): Promise<void> {
  const steps: Array<[string, () => Promise<unknown>]> = [
    [
      'http servers',
      () => Promise.all(running.servers.map((s) => closeServer(s.server, s.timeoutMs))),
    ],
    ['workers', () => stopWorkers(running.workers)],
    ['outbox relay', async () => running.relay?.stop()],
    ['event bus', async () => running.bus?.close()],
    ['database pool', async () => running.database?.close()],
  ];
  const failures: unknown[] = [];
  for (const [name, step] of steps) {
    await step().catch((err: unknown) => {
      failures.push(err);
      logger.warn({ err }, `stopping the ${name} failed`);
    });
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, 'several shutdown steps failed');
}
