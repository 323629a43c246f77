import type { z } from 'zod';
import { ConfigError, loadConfig, type ServiceEnv } from '../config';
import { createDb } from '../db/create-db';
import { NatsBus } from '../events/nats-bus';
import { OutboxRelay } from '../events/relay';
import { createLogger } from '../logger';
import { startTelemetry } from '../telemetry';
import { serve } from './serve';
import type { ServiceDefinition } from './service-definition';
import { onShutdownSignal } from './shutdown-signal';
import { stopService } from './stop-service';

function requireForStandalone(
  service: string,
  config: ServiceEnv,
): Required<Pick<ServiceEnv, 'DATABASE_URL' | 'NATS_URL' | 'INTERNAL_TOKEN_SECRET'>> {
  const missing: string[] = [];
  if (!config.DATABASE_URL)
    missing.push(
      'DATABASE_URL: required when a service runs alone (e.g. postgres://user@host:5432/crm)',
    );
  if (!config.NATS_URL)
    missing.push('NATS_URL: required when a service runs alone (e.g. nats://host:4222)');
  if (!config.INTERNAL_TOKEN_SECRET)
    missing.push(
      'INTERNAL_TOKEN_SECRET: required when a service runs alone (32+ characters, the same in the gateway and every service)',
    );
  if (missing.length > 0) {
    throw new ConfigError(service, [
      ...missing,
      '(`npm start` at the repository root runs every service in one process with an embedded Postgres and an in-process bus, and needs none of these.)',
    ]);
  }
  return config as Required<ServiceEnv>;
}

/**
 * main.ts of every service: config, telemetry, database, NATS, optional outbox relay, listen,
 * the service's workers, and a graceful stop on SIGINT/SIGTERM in the order of `stopService`
 * (readiness off; drain HTTP and stop workers, both within SHUTDOWN_TIMEOUT_MS; stop relay,
 * close bus, close pool), then exit 0.
 */
export async function runStandalone<S extends z.ZodType<ServiceEnv>>(
  service: ServiceDefinition<S>,
): Promise<void> {
  const telemetry = startTelemetry(service.name);
  let config: z.infer<S>;
  let required: ReturnType<typeof requireForStandalone>;
  try {
    config = loadConfig(service.name, service.configSchema);
    required = requireForStandalone(service.name, config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ name: service.name, level: config.LOG_LEVEL });
  const database = createDb({
    connectionString: required.DATABASE_URL,
    maxConnections: config.DB_POOL_MAX,
    applicationName: service.name,
  });
  // "listening" is logged before the workers have started, and a supervisor (or a test) may
  // signal as soon as it reads it: the handler is in place from here, and a stop that arrives
  // during start-up waits for it to finish, then stops what it started.
  const starting = (async () => {
    const bus = await NatsBus.connect({
      url: required.NATS_URL,
      logger,
      connectionName: service.name,
      streamReplicas: config.NATS_STREAM_REPLICAS,
    });
    const relay = service.runsOutboxRelay
      ? new OutboxRelay({ db: database.db, pool: database.pool, bus, logger })
      : undefined;
    await relay?.start();
    const served = await serve(service, config, {
      database,
      bus,
      internalTokenSecret: required.INTERNAL_TOKEN_SECRET,
      previousInternalTokenSecret: config.INTERNAL_TOKEN_SECRET_PREVIOUS,
    });
    return { bus, relay, ...served };
  })();
  onShutdownSignal(logger, async () => {
    const { server, workers, startDraining, relay, bus } = await starting;
    try {
      await stopService(
        {
          startDraining,
          servers: [{ server, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }],
          workers,
          workersTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
          relay,
          bus,
          database,
        },
        logger,
      );
    } finally {
      // Spans that cannot reach the collector are lost, not a failed stop: the exit stays 0.
      await telemetry
        .shutdown()
        .catch((err: unknown) => logger.warn({ err }, 'traces not flushed at shutdown'));
    }
    logger.info('stopped');
  });
  await starting;
}
