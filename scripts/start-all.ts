/**
 * `npm start`: the whole platform in one process on a fresh machine.
 *
 * - Every port checked first: one that is taken fails the start, naming its variable.
 * - The development profile (scripts/dev/dev-profile.ts, docs/development.md) unless
 *   NODE_ENV=production: stable secrets kept in <DEV_DATA_DIR>/dev-secrets.json, outbound
 *   webhooks allowed to this machine; a variable set in the environment wins.
 * - DATABASE_URL unset: an embedded Postgres (data in <DEV_DATA_DIR>/postgres, kept between runs).
 * - NATS_URL unset: the in-process event bus.
 * - Migrations applied, the demo tenant and user seeded (idempotent), all six services
 *   listening on their ports (the gateway on HOST, the others on BACKEND_HOST, default
 *   127.0.0.1), the gateway proxying to those ports (unless a *_URL is set),
 *   one outbox relay, each service's workers; Ctrl-C stops everything cleanly, in the order of
 *   a service started alone (stopService), then the embedded Postgres.
 * - A local echo receiver for workflow webhooks (ECHO_RECEIVER_PORT, 127.0.0.1), and the demo
 *   tenant's sample CRM written through the gateway once per database, unless
 *   `--no-sample-data` or SAMPLE_DATA=false (docs/sample-data.md).
 * - On a terminal: a banner and human-readable logs; otherwise JSON log lines only, the
 *   'CRM platform is running' one carrying the commands to try, without any secret.
 * - The web console (services/console) built first when its bundle is missing (one log line), so
 *   the gateway serves it at / with no extra step (docs/console.md).
 * - A configuration error is one line on stderr, exit 1.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { loadConfig, ConfigError, port } from '../libs/shared/src/config';
import { createDb, ensureDatabase, migrateToLatest, type Db } from '../libs/shared/src/db';
import { createBus, OutboxRelay, type EventBus } from '../libs/shared/src/events';
import { cliMessage } from '../libs/shared/src/errors';
import { createLogger } from '../libs/shared/src/logger';
import {
  onShutdownSignal,
  serve,
  stopService,
  type ServedService,
  type ServiceDefinition,
} from '../libs/shared/src/service';
import { buildConsoleIfMissing, consoleIsBuilt } from '../libs/test-kit/src/console-build';
import { banner } from './dev/banner';
import {
  ECHO_RECEIVER_DEFAULT_PORT,
  startEchoReceiver,
  type EchoReceiver,
} from './dev/echo-receiver';
import { devDataDir, startProfile } from './dev/dev-profile';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './dev/embedded-postgres';
import {
  checkPorts,
  connectHost,
  listenEnvFor,
  listenProblem,
  PORT_VARIABLES,
  UPSTREAM_URL_VARIABLES,
  upstreamUrlsFor,
  type BackendName,
  type PortClaim,
  type ServiceName,
} from './dev/ports';
import { prettyLogDestination } from './dev/pretty-logs';
import { sampleDataStep } from './dev/sample-data/sample-data-step';
import { seedDemo } from './dev/seed-demo';
import { services } from './dev/services';
import { startOptions } from './dev/start-options';
import {
  DEFAULT_DEMO_PASSWORD,
  migratePushCommand,
  sessionCommands,
  signInCommand,
} from './dev/try-commands';

const terminal = prettyLogDestination();
const log = createLogger({
  name: 'start',
  level: process.env.LOG_LEVEL ?? 'info',
  destination: terminal,
});

async function main(): Promise<void> {
  const options = startOptions(process.argv.slice(2), process.env);
  // Before any configuration is read: the profile's values are defaults the services read.
  const profile = startProfile(process.env);
  for (const [variable, value] of Object.entries(profile?.env ?? {})) {
    process.env[variable] = value;
  }
  const definitions = services as readonly ServiceDefinition[];
  // Every service's configuration first: a wrong value fails before anything starts.
  const configs = definitions.map((service) => ({
    service,
    config: loadConfig(
      service.name,
      service.configSchema,
      listenEnvFor(service.name as ServiceName, process.env),
    ),
  }));
  const claims = new Map<string, PortClaim>(
    configs.map(({ service, config }) => [
      service.name,
      {
        variable: PORT_VARIABLES[service.name as ServiceName],
        port: service.port(config),
        host: config.HOST,
      },
    ]),
  );
  const { EMBEDDED_PG_PORT: embeddedPort, ECHO_RECEIVER_PORT: echoPort } = loadConfig(
    'npm start',
    z.object({
      EMBEDDED_PG_PORT: port(54329),
      ECHO_RECEIVER_PORT: port(ECHO_RECEIVER_DEFAULT_PORT),
    }),
  );
  const echoClaim = { variable: 'ECHO_RECEIVER_PORT', port: echoPort, host: '127.0.0.1' };
  await checkPorts([
    ...claims.values(),
    echoClaim,
    ...(process.env.DATABASE_URL
      ? []
      : [{ variable: 'EMBEDDED_PG_PORT', port: embeddedPort, host: '127.0.0.1' }]),
  ]);
  // The gateway serves the console's build at /: a fresh checkout has none yet.
  if (!process.env.CONSOLE_DIR && !consoleIsBuilt()) {
    log.info('the web console is not built yet: building it (npm run build:console)');
    await buildConsoleIfMissing();
  }
  // The gateway proxies to the ports the backends listen on here, not to its defaults.
  const backendPorts = Object.fromEntries(
    Object.keys(UPSTREAM_URL_VARIABLES).map((name) => [name, claims.get(name)?.port]),
  ) as Record<BackendName, number>;
  const upstreamEnv = upstreamUrlsFor(
    process.env,
    backendPorts,
    claims.get('crm-api')?.host ?? '127.0.0.1',
  );

  // What has started so far, for stopAll (a signal may come in the middle of the start).
  const started: {
    embedded?: EmbeddedPostgres;
    database?: Db;
    bus?: EventBus;
    relay?: OutboxRelay;
    echo?: EchoReceiver;
  } = {};
  const running: Array<ServedService & { shutdownTimeoutMs: number }> = [];
  const stopAll = async () => {
    // The order of every service (stopService): readiness off, drain HTTP and stop workers,
    // stop the relay, close the bus and the pool, each step attempted whatever happened to the
    // one before; then the embedded Postgres, whatever has started so far.
    await stopService(
      {
        startDraining: () => running.forEach((r) => r.startDraining()),
        servers: running.map((r) => ({ server: r.server, timeoutMs: r.shutdownTimeoutMs })),
        workers: running.flatMap((r) => r.workers),
        relay: started.relay,
        bus: started.bus,
        database: started.database,
      },
      log,
    ).catch(() => undefined); // stopService has logged each failure
    await started.echo?.close();
    await started.embedded
      ?.stop()
      .catch((err: unknown) => log.warn({ err }, 'stopping the embedded Postgres failed'));
  };
  // From here on a signal stops what has started, in order (also during the start).
  onShutdownSignal(log, async () => {
    await stopAll();
    log.info('every service stopped');
  });

  const echo = await startEchoReceiver({
    port: echoPort,
    log: createLogger({ name: 'echo', level: log.level, destination: terminal }),
  }).catch(async (err: unknown) => {
    await stopAll();
    throw listenProblem(echoClaim, err);
  });
  started.echo = echo;

  const embeddedDataDir = join(devDataDir(process.env), 'postgres');
  if (!process.env.DATABASE_URL) {
    log.info(
      { port: embeddedPort, dataDir: embeddedDataDir },
      'DATABASE_URL is unset: starting the embedded Postgres',
    );
    const embedded = await startEmbeddedPostgres({
      dataDir: embeddedDataDir,
      port: embeddedPort,
      persistent: true,
      callerHandlesSignals: true,
      log: (line) => log.debug({ postgres: line.trim() }),
    });
    started.embedded = embedded;
    await ensureDatabase(embedded.adminUrl, 'crm');
    process.env.DATABASE_URL = embedded.urlFor('crm');
  }
  // Set by the profile, or required by startProfile under NODE_ENV=production.
  const internalTokenSecret = process.env.INTERNAL_TOKEN_SECRET as string;
  const databaseUrl = process.env.DATABASE_URL;
  const database = createDb({
    connectionString: databaseUrl,
    maxConnections: 20,
    applicationName: 'crm-dev',
  });
  started.database = database;
  const { applied } = await migrateToLatest(database.db);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const demoPassword = process.env.DEMO_PASSWORD ?? 'demo-password';
  const demo = await seedDemo(database.db, demoPassword);

  const bus = await createBus({
    natsUrl: process.env.NATS_URL,
    logger: log,
    connectionName: 'crm-dev',
  });
  started.bus = bus;
  const relay = new OutboxRelay({ db: database.db, pool: database.pool, bus, logger: log });
  started.relay = relay;
  await relay.start();

  let gatewayConfig: Record<string, unknown> = {};
  for (const { service } of configs) {
    // The gateway's *_URL defaults follow the ports above; other services ignore them.
    const config = loadConfig(service.name, service.configSchema, {
      ...listenEnvFor(service.name as ServiceName, process.env),
      ...upstreamEnv,
    });
    const served = await serve(service, config, {
      database,
      bus,
      internalTokenSecret,
      logDestination: terminal,
    }).catch(async (err: unknown) => {
      // Taken since the check above: same message, and nothing left running.
      await stopAll();
      throw listenProblem(claims.get(service.name) as PortClaim, err);
    });
    running.push({ ...served, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
    if (service.name === 'gateway') gatewayConfig = config as Record<string, unknown>;
  }

  const gatewayUrl = `http://localhost:${claims.get('gateway')?.port}`;
  const gatewayClaim = claims.get('gateway') as PortClaim;
  const sampleData = await sampleDataStep({
    enabled: options.sampleData,
    gatewayUrl: `http://${connectHost(gatewayClaim.host)}:${gatewayClaim.port}`,
    demo,
    echo,
    log,
  });
  const backends = running
    .filter((r) => r.name !== 'gateway')
    .map((r) => ({
      name: r.name,
      listening: `http://${connectHost(claims.get(r.name)?.host ?? '')}:${r.port}`,
      proxiedTo: String(gatewayConfig[UPSTREAM_URL_VARIABLES[r.name as BackendName]]),
    }));
  const databaseText = started.embedded
    ? `embedded Postgres (${embeddedDataDir}, port ${embeddedPort})`
    : 'DATABASE_URL';
  const eventBus = bus.kind === 'nats' ? 'NATS JetStream (NATS_URL)' : 'in-process';
  const migratePush = migratePushCommand(
    gatewayUrl,
    demo.tenant.slug,
    profile && !profile.fromEnvironment.includes('SVC_MIGRATE_SIGNING_SECRET')
      ? profile.secretsFile
      : undefined,
  );
  if (terminal) {
    process.stdout.write(
      banner({
        gatewayUrl,
        services: backends,
        database: databaseText,
        eventBus,
        demo,
        sampleData,
        echoUrl: echo.url,
        profile,
        migratePush,
      }),
    );
  } else {
    // Not a terminal: stdout stays one JSON object per line, kept and shipped like any log, so
    // no secret: the password only when it is the public default, else `$DEMO_PASSWORD`.
    const password = demo.password === DEFAULT_DEMO_PASSWORD ? demo.password : '$DEMO_PASSWORD';
    log.info(
      {
        gateway: gatewayUrl,
        services: Object.fromEntries(backends.map((b) => [b.name, b.proxiedTo])),
        database: databaseText,
        eventBus,
        demo: { tenant: demo.tenant.slug, email: demo.user.email },
        sampleData: sampleData.state,
        echoReceiver: echo.url,
        signIn: signInCommand(gatewayUrl, demo.user.email, password),
        try: sessionCommands(gatewayUrl),
        migratePush,
        profile: profile
          ? {
              secretsFile: profile.secretsFile,
              fromEnvironment: profile.fromEnvironment,
              outboundPrivateNetworks: profile.privateNetworksAllowed,
            }
          : 'none (NODE_ENV=production)',
      },
      'CRM platform is running',
    );
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${cliMessage(err)}\n`);
  } else if (err instanceof Error) {
    log.error({ err }, `start failed: ${err.message}`);
  } else {
    // embedded-postgres rejects with the server's last output rather than an Error.
    log.error({ detail: String(err) }, 'start failed');
  }
  process.exit(1);
});
