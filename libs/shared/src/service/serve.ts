import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import type { z } from 'zod';
import type { ServiceEnv } from '../config';
import type { Db } from '../db/create-db';
import type { EventBus } from '../events/bus';
import { createLogger, type Logger } from '../logger';
import { closeServer, listen } from './http-server';
import type { ServiceDefinition, Worker } from './service-definition';
import { readVersion } from './version';
import { startWorkers } from './workers';

export interface ServedService {
  name: string;
  port: number;
  server: Server;
  logger: Logger;
  /** The service's workers, started once it listens. */
  workers: Worker[];
  /** From now on the app's `GET /ready` answers 503 (called first thing on SIGTERM). */
  startDraining: () => void;
}

/**
 * Builds a service's app from the shared resources, listens on its port, then starts its
 * workers: the one wiring used both by a service started alone and by the all-in-one
 * `npm start`. If a worker fails to start, the server is closed again before the error goes on.
 */
export async function serve<S extends z.ZodType<ServiceEnv>>(
  service: ServiceDefinition<S>,
  config: z.infer<S>,
  shared: {
    database: Db;
    bus: EventBus;
    internalTokenSecret: string;
    previousInternalTokenSecret?: string;
    /** Where the service logs (default stdout, JSON); `npm start` on a terminal passes pino-pretty. */
    logDestination?: DestinationStream;
  },
): Promise<ServedService> {
  const logger = createLogger({
    name: service.name,
    level: config.LOG_LEVEL,
    destination: shared.logDestination,
  });
  const version = readVersion(service.packageDir);
  let draining = false;
  const app = service.createApp(
    {
      logger,
      db: shared.database.db,
      pool: shared.database.pool,
      pingDatabase: shared.database.ping,
      bus: shared.bus,
      version,
      internalTokenSecret: shared.internalTokenSecret,
      previousInternalTokenSecret: shared.previousInternalTokenSecret,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      isDraining: () => draining,
    },
    config,
  );
  const port = service.port(config);
  const server = await listen(app, port, config.HOST);
  // What the app holds beyond its requests (the gateway's LISTEN connection) ends with its
  // server, so before the pool and the database go away (stopService).
  server.once('close', () => app.emit('close'));
  // The address the socket really bound, so an operator (and a test) sees who can reach it.
  const bound = server.address();
  logger.info(
    { host: typeof bound === 'object' && bound ? bound.address : config.HOST, port },
    `${service.name} listening`,
  );
  const workerDeps = {
    logger,
    db: shared.database.db,
    pool: shared.database.pool,
    bus: shared.bus,
    internalTokenSecret: shared.internalTokenSecret,
    previousInternalTokenSecret: shared.previousInternalTokenSecret,
    version,
  };
  const workers = await startWorkers(service, workerDeps, config).catch(async (err: unknown) => {
    await closeServer(server, 0);
    throw err;
  });
  return {
    name: service.name,
    port,
    server,
    logger,
    workers,
    startDraining: () => {
      draining = true;
    },
  };
}
