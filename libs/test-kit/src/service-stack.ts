import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type ServiceEnv } from '@crm/shared/config';
import type { Db } from '@crm/shared/db';
import type { Role } from '@crm/shared/identity';
import {
  closeServer,
  listen,
  startWorkers,
  stopWorkers,
  type AppDeps,
  type ServiceDefinition,
  type Worker,
} from '@crm/shared/service';
import { addMember, createTenant, testAppDeps } from '@crm/shared/testing';
import request from 'supertest';
import type { z } from 'zod';
import { createAccount, signIn, testGateway, upstreamsAt, type TestGateway } from './gateway';

export interface ServiceStack {
  /** The gateway's base URL: test requests go through it, as clients' and providers' do. */
  url: string;
  /** The service's own address, for tests of the service without the gateway. */
  serviceUrl: string;
  gateway: TestGateway;
}

/**
 * Registers beforeAll/afterAll for one real service behind a real gateway, both listening on
 * loopback, on the test database, with the service's workers running (on the in-process bus
 * of its deps) as they do when it is deployed. `env` configures the service; `deps` overrides its
 * dependencies (e.g. a capturing logger).
 */
export function useServiceBehindGateway<S extends z.ZodType<ServiceEnv>>(
  service: ServiceDefinition<S>,
  env: Record<string, string> = {},
  deps: Partial<AppDeps> = {},
): ServiceStack {
  const stack = {} as ServiceStack;
  const serviceDeps = testAppDeps(deps);
  let serviceServer: Server;
  let gatewayServer: Server;
  let workers: Worker[] = [];
  beforeAll(async () => {
    const config = loadConfig(service.name, service.configSchema, env);
    serviceServer = await listen(service.createApp(serviceDeps, config), 0, '127.0.0.1');
    workers = await startWorkers(service, serviceDeps, config);
    stack.serviceUrl = `http://127.0.0.1:${(serviceServer.address() as AddressInfo).port}`;
    stack.gateway = testGateway(upstreamsAt(stack.serviceUrl));
    gatewayServer = await listen(stack.gateway.app, 0, '127.0.0.1');
    stack.url = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeServer(gatewayServer, 1000);
    await closeServer(serviceServer, 1000);
    await stopWorkers(workers);
    await stack.gateway.close();
    await serviceDeps.closeAll();
  });
  return stack;
}

/** A new tenant with a signed-in user of `role`; returns the Cookie header and ids. */
export async function tenantSession(
  stack: { gateway: TestGateway },
  db: Db,
  role: Role = 'owner',
): Promise<{ tenantId: string; userId: string; cookie: string }> {
  const tenant = await createTenant(db);
  const user = await createAccount(db, role);
  await addMember(db, tenant.id, user.id, role);
  return {
    tenantId: tenant.id,
    userId: user.id,
    cookie: await signIn(stack.gateway.app, user.email),
  };
}

/** Requests to `url` carrying one session's cookie: the calls a signed-in client makes. */
export function sessionClient(url: string, cookie: string) {
  const client = request(url);
  return {
    get: (path: string) => client.get(path).set('Cookie', cookie),
    post: (path: string, body: unknown) =>
      client
        .post(path)
        .set('Cookie', cookie)
        .send(body as object),
    patch: (path: string, body: unknown) =>
      client
        .patch(path)
        .set('Cookie', cookie)
        .send(body as object),
    delete: (path: string) => client.delete(path).set('Cookie', cookie),
  };
}
