import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@crm/shared/config';
import { hashPassword } from '@crm/shared/crypto';
import { withSystemScope, type Db } from '@crm/shared/db';
import { testAppDeps } from '@crm/shared/testing';
import { configSchema, createApp, type AppOverrides, type Config } from '@crm/gateway';
import type { Express } from 'express';
import request from 'supertest';

/** Generous limits so parallel test files never trip each other's per-IP counters. */
const TEST_ENV = {
  RATE_LIMIT_SIGN_IN_PER_MINUTE: '100000',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
  RATE_LIMIT_PLANS: 'free=100000',
  // Tests share accounts' failed sign-ins only within themselves; the per-account waits have
  // tests of their own (sign-in-failures-are-throttled-per-account).
  SIGN_IN_FAILURES_PER_ACCOUNT: '100000',
  SIGN_IN_FAILURES_PER_ACCOUNT_AND_IP: '100000',
};

export interface TestGateway {
  app: Express;
  config: Config;
  deps: ReturnType<typeof testAppDeps>;
  close(): Promise<void>;
}

/**
 * A gateway app on the test database; `env` overrides its configuration, `appOverrides` what
 * the gateway lets a test swap in (the OAuth client document fetcher).
 */
export function testGateway(
  env: Record<string, string> = {},
  depsOverrides: Parameters<typeof testAppDeps>[0] = {},
  appOverrides: AppOverrides = {},
): TestGateway {
  const config = loadConfig('gateway', configSchema, { ...TEST_ENV, ...env });
  const deps = testAppDeps(depsOverrides);
  return {
    app: createApp(deps, config, appOverrides),
    config,
    deps,
    close: () => deps.closeAll(),
  };
}

export const PASSWORD = 'correct horse battery staple';
let passwordHash: Promise<string> | undefined;

/** A user who can sign in with PASSWORD (the hash is computed once per test file). */
export async function createAccount(db: Db, name = 'user'): Promise<{ id: string; email: string }> {
  passwordHash ??= hashPassword(PASSWORD);
  const email = `${name}-${Math.random().toString(36).slice(2, 10)}@example.test`;
  return withSystemScope(db.db, async (trx) =>
    trx
      .insertInto('users')
      .values({ email, name, password_hash: await (passwordHash as Promise<string>) })
      .returning(['id', 'email'])
      .executeTakeFirstOrThrow(),
  );
}

/** Signs in through the gateway; returns the Cookie header value to send. */
export async function signIn(app: Express, email: string): Promise<string> {
  const res = await request(app).post('/api/auth/sign-in').send({ email, password: PASSWORD });
  if (res.status !== 200)
    throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return cookieHeader(res.headers['set-cookie']);
}

/** `Set-Cookie` response headers -> one `Cookie` request header. */
export function cookieHeader(setCookie: string | string[] | undefined): string {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return list.map((c) => c.split(';')[0]).join('; ');
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface EchoService {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A stand-in downstream service that records exactly what reached it (method, url, headers,
 * body bytes) and answers 200 with a small JSON summary.
 */
export async function startEchoService(): Promise<EchoService> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      if (req.url === '/health') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"healthy"}');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ echoed: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every upstream URL of the gateway pointed at one echo service. */
export function upstreamsAt(url: string): Record<string, string> {
  return {
    CRM_API_URL: url,
    WEBHOOK_INGEST_URL: url,
    AUTOMATION_URL: url,
    MCP_INGEST_URL: url,
    MIGRATE_URL: url,
  };
}

/**
 * Registers beforeAll/afterAll for a gateway whose five upstreams all point at one echo
 * service; read `echo` and `gateway` from the returned object inside tests.
 */
export function useGatewayWithEcho(env: Record<string, string> = {}): {
  echo: EchoService;
  gateway: TestGateway;
} {
  const context = {} as { echo: EchoService; gateway: TestGateway };
  beforeAll(async () => {
    context.echo = await startEchoService();
    context.gateway = testGateway({ ...upstreamsAt(context.echo.url), ...env });
  });
  afterAll(async () => {
    await context.gateway.close();
    await context.echo.close();
  });
  return context;
}

/**
 * The invitee's side of adding a member: finds their pending invitation to `tenantId`
 * (`GET /api/auth/invitations`) and accepts it; returns the accepted membership.
 */
export async function acceptInvitationTo(
  app: Express | string,
  cookie: string,
  tenantId: string,
): Promise<{ tenantId: string; role: string; status: string; joinedAt: string }> {
  const list = await request(app).get('/api/auth/invitations').set('Cookie', cookie);
  if (list.status !== 200)
    throw new Error(`listing invitations failed: ${list.status} ${JSON.stringify(list.body)}`);
  const invitation = (
    list.body.data.invitations as Array<{ invitationId: string; tenantId: string }>
  ).find((i) => i.tenantId === tenantId);
  if (!invitation) throw new Error(`no pending invitation to tenant ${tenantId}`);
  const res = await request(app)
    .post(`/api/auth/invitations/${invitation.invitationId}/accept`)
    .set('Cookie', cookie);
  if (res.status !== 200)
    throw new Error(`accepting failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.membership;
}
