/**
 * `npm start`: the whole platform in one process on a fresh machine.
 *
 * - DATABASE_URL unset: an embedded Postgres (data in .data/postgres, kept between runs).
 * - NATS_URL unset: the in-process event bus.
 * - Migrations applied, the demo tenant and user seeded (idempotent), all six services
 *   listening on their ports, one outbox relay; Ctrl-C stops everything cleanly.
 */
import { loadConfig, ConfigError } from '../libs/shared/src/config';
import { randomToken } from '../libs/shared/src/crypto';
import { createDb, ensureDatabase, migrateToLatest } from '../libs/shared/src/db';
import { createBus, OutboxRelay } from '../libs/shared/src/events';
import { createLogger } from '../libs/shared/src/logger';
import {
  closeServer,
  onShutdownSignal,
  serve,
  type ServedService,
  type ServiceDefinition,
} from '../libs/shared/src/service';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './dev/embedded-postgres';
import { seedDemo } from './dev/seed-demo';
import { services } from './dev/services';

const log = createLogger({ name: 'start', level: process.env.LOG_LEVEL ?? 'info' });

async function main(): Promise<void> {
  let embedded: EmbeddedPostgres | undefined;
  if (!process.env.DATABASE_URL) {
    const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
    log.info(
      { port, dataDir: '.data/postgres' },
      'DATABASE_URL is unset: starting the embedded Postgres',
    );
    embedded = await startEmbeddedPostgres({
      dataDir: '.data/postgres',
      port,
      persistent: true,
      log: (line) => log.debug({ postgres: line.trim() }),
    });
    await ensureDatabase(embedded.adminUrl, 'crm');
    process.env.DATABASE_URL = embedded.urlFor('crm');
  }
  if (!process.env.INTERNAL_TOKEN_SECRET) {
    // Every service runs in this process, so a per-run secret is enough; never in production.
    process.env.INTERNAL_TOKEN_SECRET = randomToken(32);
  }
  const databaseUrl = process.env.DATABASE_URL;
  const database = createDb({
    connectionString: databaseUrl,
    maxConnections: 20,
    applicationName: 'crm-dev',
  });
  const { applied } = await migrateToLatest(database.db);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const demoPassword = process.env.DEMO_PASSWORD ?? 'demo-password';
  const demo = await seedDemo(database.db, demoPassword);

  const bus = await createBus({
    natsUrl: process.env.NATS_URL,
    logger: log,
    connectionName: 'crm-dev',
  });
  const relay = new OutboxRelay({ db: database.db, pool: database.pool, bus, logger: log });
  await relay.start();

  const running: Array<ServedService & { shutdownTimeoutMs: number }> = [];
  for (const service of services as readonly ServiceDefinition[]) {
    const config = loadConfig(service.name, service.configSchema);
    const served = await serve(service, config, {
      database,
      bus,
      internalTokenSecret: process.env.INTERNAL_TOKEN_SECRET,
    });
    running.push({ ...served, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  }

  onShutdownSignal(log, async () => {
    // Ctrl-C reaches the embedded Postgres too (same process group), so the database may
    // already be going away: each step is attempted whatever happened to the one before.
    const steps: Array<[string, () => Promise<unknown>]> = [
      [
        'http servers',
        () => Promise.all(running.map((r) => closeServer(r.server, r.shutdownTimeoutMs))),
      ],
      ['outbox relay', () => relay.stop()],
      ['event bus', () => bus.close()],
      ['database pool', () => database.close()],
      ['embedded Postgres', async () => embedded?.stop()],
    ];
    for (const [name, step] of steps) {
      await step().catch((err: unknown) => log.warn({ err }, `stopping the ${name} failed`));
    }
    log.info('every service stopped');
  });

  const gatewayPort = running.find((r) => r.name === 'gateway')?.port ?? 8080;
  const url = `http://localhost:${gatewayPort}`;
  const lines = [
    '',
    'CRM platform is running.',
    ...running.map((r) => `  ${r.name.padEnd(15)} http://localhost:${r.port}`),
    `  database        ${embedded ? 'embedded Postgres (.data/postgres)' : 'DATABASE_URL'}`,
    `  event bus       ${bus.kind === 'nats' ? 'NATS JetStream (NATS_URL)' : 'in-process'}`,
    '',
    `Gateway:  ${url}`,
    `Demo tenant: ${demo.tenant.name} (slug "${demo.tenant.slug}", id ${demo.tenant.id})`,
    `Demo user:   ${demo.user.email} / ${demo.password}`,
    '',
    'Try it (sign in, then call a Session route with the cookie):',
    `  curl -s -c /tmp/crm.cookies -H 'content-type: application/json' \\`,
    `       -d '{"email":"${demo.user.email}","password":"${demo.password}"}' ${url}/api/auth/sign-in`,
    `  curl -s -b /tmp/crm.cookies ${url}/api/auth/me`,
    `  curl -s ${url}/api/health`,
    '',
    'Ctrl-C stops every service and the embedded Postgres.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else if (err instanceof Error) {
    log.error({ err }, `start failed: ${err.message}`);
  } else {
    // embedded-postgres rejects with the server's last output rather than an Error.
    log.error({ detail: String(err) }, 'start failed');
  }
  process.exit(1);
});
