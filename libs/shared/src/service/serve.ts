import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import type { z } from 'zod';
import type { ServiceEnv } from '../config';
import type { Db } from '../db/create-db';
import type { EventBus } from '../events/bus';
import { createLogger, type Logger } from '../logger';
import { listen } from './http-server';
import type { ServiceDefinition } from './service-definition';
import { readVersion } from './version';

export interface ServedService {
  name: string;
  port: number;
  server: Server;
  logger: Logger;
}

/**
 * Builds a service's app from the shared resources and listens on its port: the one wiring
 * used both by a service started alone and by the all-in-one `npm start`.
 */
export async function serve<S extends z.ZodType<ServiceEnv>>(
  service: ServiceDefinition<S>,
  config: z.infer<S>,
  shared: {
    database: Db;
    bus: EventBus;
    internalTokenSecret: string;
    /** Where the service logs (default stdout, JSON); `npm start` on a terminal passes pino-pretty. */
    logDestination?: DestinationStream;
  },
): Promise<ServedService> {
  const logger = createLogger({
    name: service.name,
    level: config.LOG_LEVEL,
    destination: shared.logDestination,
  });
  const app = service.createApp(
    {
      logger,
      db: shared.database.db,
      pool: shared.database.pool,
      pingDatabase: shared.database.ping,
      bus: shared.bus,
      version: readVersion(service.packageDir),
      internalTokenSecret: shared.internalTokenSecret,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
    },
    config,
  );
  const port = service.port(config);
  const server = await listen(app, port, config.HOST);
  logger.info({ port }, `${service.name} listening`);
  return { name: service.name, port, server, logger };
}
