import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@crm/shared/config';
import type { Db } from '@crm/shared/db';
import { InProcessBus, NatsBus, OutboxRelay, type EventBus } from '@crm/shared/events';
import {
  closeServer,
  listen,
  startWorkers,
  stopWorkers,
  type AppDeps,
  type ServiceDefinition,
  type Worker,
} from '@crm/shared/service';
import {
  captureLogger,
  isolatedTestDb,
  natsUrlForTests,
  TEST_INTERNAL_TOKEN_SECRET,
} from '@crm/shared/testing';
import { testGateway, type TestGateway } from './gateway';
import { freePortForTests } from './ports';

export interface PlatformStack {
  /** The gateway's base URL: test requests go through it. */
  url: string;
  /** Each service's own address, by service name. */
  serviceUrls: Record<string, string>;
  gateway: TestGateway;
  /** The stack's own database (cloned from the migrated template; dropped afterwards). */
  database: Db;
  /** The bus every service, worker and the outbox relay share. */
  bus: EventBus;
}

export interface PlatformService {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  service: ServiceDefinition<any>;
  env?: Record<string, string>;
}

/** `crm-api` -> `CRM_API_URL`: the gateway's upstream setting of a service. */
const upstreamVar = (name: string) => `${name.toUpperCase().replace(/-/g, '_')}_URL`;

/**
 * Registers beforeAll/afterAll for several real services behind one real gateway, as deployed:
 * one database of the stack's own (an outbox relay publishes every pending row it sees), one
 * bus they all share (JetStream on a stream of the stack's own when the test run has NATS,
 * else the in-process bus), an outbox relay when a service writes events, and every
 * service's workers. E.g. crm-api and automation: an import through the gateway becomes
 * events that automation's consumer receives.
 */
export function usePlatformBehindGateway(
  services: PlatformService[],
  options: {
    deps?: Partial<AppDeps>;
    /**
     * Every service and the gateway are told the gateway's own address as PUBLIC_BASE_URL (the
     * gateway listens on a port picked first), as a deployment is: what a client checks against
     * the URL it called, such as an OAuth issuer or an MCP resource, then matches.
     */
    publicBaseUrlIsTheGateway?: boolean;
  } = {},
): PlatformStack {
  const stack = { serviceUrls: {} } as PlatformStack;
  const servers: Server[] = [];
  let workers: Worker[] = [];
  let relay: OutboxRelay | undefined;
  let gatewayServer: Server | undefined;
  const logger = captureLogger('warn').logger;

  beforeAll(async () => {
    stack.database = await isolatedTestDb();
    const natsUrl = natsUrlForTests();
    const unique = randomUUID().replace(/-/g, '').slice(0, 12);
    stack.bus = natsUrl
      ? await NatsBus.connect({
          url: natsUrl,
          logger,
          streamName: `TEST_${unique}`,
          subjectPrefix: `test_${unique}.events`,
        })
      : new InProcessBus({ logger });
    const deps: AppDeps = {
      logger,
      db: stack.database.db,
      pool: stack.database.pool,
      pingDatabase: stack.database.ping,
      bus: stack.bus,
      version: '1.2.3-test',
      internalTokenSecret: TEST_INTERNAL_TOKEN_SECRET,
      bodyLimitBytes: 1_048_576,
      ...options.deps,
    };
    const gatewayPort = options.publicBaseUrlIsTheGateway ? await freePortForTests() : 0;
    const publicEnv: Record<string, string> = gatewayPort
      ? { PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}` }
      : {};
    const upstreams: Record<string, string> = {};
    for (const { service, env = {} } of services) {
      const config = loadConfig(service.name, service.configSchema, { ...publicEnv, ...env });
      const server = await listen(service.createApp(deps, config), 0, '127.0.0.1');
      servers.push(server);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      stack.serviceUrls[service.name] = url;
      upstreams[upstreamVar(service.name)] = url;
      workers.push(...(await startWorkers(service, deps, config)));
    }
    if (services.some(({ service }) => service.runsOutboxRelay)) {
      relay = new OutboxRelay({
        db: deps.db,
        pool: deps.pool,
        bus: stack.bus,
        logger,
        pollIntervalMs: 200,
      });
      await relay.start();
    }
    stack.gateway = testGateway(
      { ...upstreams, ...publicEnv },
      {
        db: deps.db,
        pool: deps.pool,
        pingDatabase: deps.pingDatabase,
      },
    );
    gatewayServer = await listen(stack.gateway.app, gatewayPort, '127.0.0.1');
    stack.url = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    if (gatewayServer) await closeServer(gatewayServer, 1000);
    for (const server of servers) await closeServer(server, 1000);
    await stopWorkers(workers);
    workers = [];
    await relay?.stop();
    await stack.gateway?.close();
    if (stack.bus instanceof NatsBus) await stack.bus.deleteStream().catch(() => undefined);
    await stack.bus?.close();
    await stack.database?.close();
  });
  return stack;
}
