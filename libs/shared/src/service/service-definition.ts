import type { Express } from 'express';
import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ServiceEnv } from '../config';
import type { Database } from '../db/schema';
import type { EventBus } from '../events/bus';

/** What a service's createApp() is built from; tests pass their own. */
export interface AppDeps {
  logger: Logger;
  db: Kysely<Database>;
  /** The pool under `db`, for libraries that take a pg pool (e.g. the gateway's rate limiter). */
  pool: Pool;
  /** Resolves when the database answers (health check). */
  pingDatabase: () => Promise<void>;
  bus: EventBus;
  version: string;
  /** Verifies the gateway's identity header (and signs it, in the gateway). */
  internalTokenSecret: string;
  /** INTERNAL_TOKEN_SECRET_PREVIOUS: still accepted while INTERNAL_TOKEN_SECRET is rotated. */
  previousInternalTokenSecret?: string;
  bodyLimitBytes: number;
  /**
   * True once the process has begun to shut down (`serve()` sets it on SIGTERM): the app's
   * `GET /ready` then answers 503. Unset (tests that build an app alone): never draining.
   */
  isDraining?: () => boolean;
}

/**
 * What a service's workers are built from: the shared resources, without the HTTP parts (the
 * internal secret and version too, e.g. for automation's sealed secrets and User-Agent).
 */
export type WorkerDeps = Pick<
  AppDeps,
  | 'logger'
  | 'db'
  | 'pool'
  | 'bus'
  | 'internalTokenSecret'
  | 'previousInternalTokenSecret'
  | 'version'
>;

/**
 * Something a service runs beside its HTTP app, such as an event consumer. A service has any
 * number of them (each named in the logs). `start()` resolves once it is running; `stop()`
 * stops pulling new work (messages) and resolves when the work already in hand (an in-flight
 * handler) has finished, so that the bus and the pool can be closed after it. Workers start
 * after the app listens and stop after it has drained (`stopService`), before the outbox
 * relay, the bus and the pool.
 */
export interface Worker {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One service as main.ts describes it: its name, config schema, port and app. The standalone
 * runner (one service per process, as deployed) and the all-in-one dev start both use it.
 */
export interface ServiceDefinition<S extends z.ZodType<ServiceEnv> = z.ZodType<ServiceEnv>> {
  name: string;
  configSchema: S;
  port: (config: z.infer<S>) => number;
  /**
   * The HTTP app. Served (`serve`), it gets a `close` event once its server has closed: a
   * connection of its own (the gateway's LISTEN) ends then, before the pool is closed.
   */
  createApp: (deps: AppDeps, config: z.infer<S>) => Express;
  /**
   * Optional background workers (e.g. automation's event consumer), run by the standalone
   * start, `npm start` and the test helpers; see `Worker` for their life cycle.
   */
  workers?: (deps: WorkerDeps, config: z.infer<S>) => Worker[];
  /** Services that write events run an outbox relay (several relays are safe). */
  runsOutboxRelay: boolean;
  packageDir: string;
}
