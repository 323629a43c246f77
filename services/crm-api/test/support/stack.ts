import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@crm/shared/config';
import { closeServer, listen } from '@crm/shared/service';
import { addMember, createTenant, testAppDeps } from '@crm/shared/testing';
import type { Db } from '@crm/shared/db';
import type { Role } from '@crm/shared/identity';
import {
  createAccount,
  signIn,
  testGateway,
  upstreamsAt,
  type TestGateway,
} from '../../../gateway/test/support/gateway';
import { service as crmApi } from '../../src/main';

export interface Stack {
  /** The gateway's base URL: every test request goes through it, as clients' do. */
  url: string;
  crmUrl: string;
  gateway: TestGateway;
}

/**
 * Registers beforeAll/afterAll for a real crm-api behind a real gateway, both listening on
 * loopback. `env` configures crm-api.
 */
export function useStack(env: Record<string, string> = {}): Stack {
  const stack = {} as Stack;
  const crmDeps = testAppDeps();
  let crm: Server;
  let gw: Server;
  beforeAll(async () => {
    crm = await listen(
      crmApi.createApp(crmDeps, loadConfig('crm-api', crmApi.configSchema, env)),
      0,
      '127.0.0.1',
    );
    stack.crmUrl = `http://127.0.0.1:${(crm.address() as AddressInfo).port}`;
    stack.gateway = testGateway(upstreamsAt(stack.crmUrl));
    gw = await listen(stack.gateway.app, 0, '127.0.0.1');
    stack.url = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeServer(gw, 1000);
    await closeServer(crm, 1000);
    await stack.gateway.close();
    await crmDeps.closeAll();
  });
  return stack;
}

/** A new tenant with a signed-in user of `role`; returns the Cookie header and ids. */
export async function tenantSession(
  stack: Stack,
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
