import type { Express } from 'express';
import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ConfigError, loadConfig, type ServiceEnv } from '../config';
import { createDb } from '../db/create-db';
import type { Database } from '../db/schema';
import type { EventBus } from '../events/bus';
import { NatsBus } from '../events/nats-bus';
import { OutboxRelay } from '../events/relay';
import { createLogger } from '../logger';
import { startTelemetry } from '../telemetry';
import { closeServer } from './http-server';
import { serve } from './serve';
import { onShutdownSignal } from './shutdown-signal';

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
  bodyLimitBytes: number;
}

/**
 * One service as main.ts describes it: its name, config schema, port and app. The standalone
 * runner (one service per process, as deployed) and the all-in-one dev start both use it.
 */
export interface ServiceDefinition<S extends z.ZodType<ServiceEnv> = z.ZodType<ServiceEnv>> {
  name: string;
  configSchema: S;
  port: (config: z.infer<S>) => number;
  createApp: (deps: AppDeps, config: z.infer<S>) => Express;
  /** Services that write events run an outbox relay (several relays are safe). */
  runsOutboxRelay: boolean;
  packageDir: string;
}

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
 * and a graceful stop on SIGINT/SIGTERM (drain HTTP, stop relay, close bus, close pool).
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
  const bus = await NatsBus.connect({
    url: required.NATS_URL,
    logger,
    connectionName: service.name,
  });
  const relay = service.runsOutboxRelay
    ? new OutboxRelay({ db: database.db, pool: database.pool, bus, logger })
    : undefined;
  await relay?.start();
  const { server } = await serve(service, config, {
    database,
    bus,
    internalTokenSecret: required.INTERNAL_TOKEN_SECRET,
  });
  onShutdownSignal(logger, async () => {
    await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
    await relay?.stop();
    await bus.close();
    await database.close();
    await telemetry.shutdown();
    logger.info('stopped');
  });
}
