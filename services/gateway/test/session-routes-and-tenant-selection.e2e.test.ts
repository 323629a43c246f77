import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IDENTITY_HEADER, signIdentity, verifyIdentity } from '@crm/shared/identity';
import {
  addMember,
  createAccount,
  createTenant,
  signIn,
  TEST_INTERNAL_TOKEN_SECRET,
  testDb,
  useGatewayWithEcho,
} from '@crm/test-kit';
import request from 'supertest';
import { PROXY_TABLE } from '@crm/shared/routes';

const database = testDb();

const SESSION_PATHS = PROXY_TABLE.filter((r) => r.auth === 'session').flatMap((r) =>
  r.prefixes.map((p) => `${p}/probe`),
);

const upstream = useGatewayWithEcho();
afterAll(() => database.close());
beforeEach(() => {
  upstream.echo.received.length = 0;
});

/** The identity the service received with the last forwarded request. */
function forwardedIdentity() {
  const header = upstream.echo.received.at(-1)?.headers[IDENTITY_HEADER];
  const result = verifyIdentity(
    typeof header === 'string' ? header : undefined,
    TEST_INTERNAL_TOKEN_SECRET,
  );
  if (!result.ok) throw new Error(`no valid identity forwarded: ${result.reason}`);
  return result.identity;
}

/**
 * POST `{"title":"x"}` with `Expect: 100-continue`, sending the body once the gateway says
 * continue, as curl does for large bodies (supertest cannot send such a request).
 */
async function postExpectingContinue(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; requestId: unknown }> {
  const server = createServer(upstream.gateway.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const body = JSON.stringify({ title: 'x' });
    return await new Promise((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        method: 'POST',
        path,
        headers: {
          ...headers,
          expect: '100-continue',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('continue', () => req.end(body));
      req.on('response', (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, requestId: res.headers['x-request-id'] }),
        );
      });
      req.on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('every Session route of the proxy table', () => {
  it('covers the Session prefixes of the proxy table', () => {
    expect(SESSION_PATHS).toEqual([
      '/api/v1/import/probe',
      '/api/crm/probe',
      '/api/exports/probe',
      '/api/integrations/probe',
      '/api/automations/probe',
      '/api/events/probe',
      '/api/mcp/keys/probe',
      '/api/mcp/connections/probe',
    ]);
  });

  it.each(SESSION_PATHS)(
    '%s without a session -> 401 Unauthorized, nothing forwarded',
    async (path) => {
      const res = await request(upstream.gateway.app).post(path).send({ a: 1 });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
        message: 'Sign in to continue',
        details: null,
      });
      expect(upstream.echo.received).toEqual([]);
    },
  );

  it.each(SESSION_PATHS)(
    '%s signed in without an active membership -> 403 No active tenant membership',
    async (path) => {
      const user = await createAccount(database, 'lonely');
      const tenant = await createTenant(database);
      await addMember(database, tenant.id, user.id, 'owner', 'disabled');
      const cookie = await signIn(upstream.gateway.app, user.email);
      const res = await request(upstream.gateway.app).get(path).set('Cookie', cookie);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: 'No active tenant membership',
        code: 'TENANT_ACCESS_DENIED',
        message: 'You have no active membership in any tenant',
        details: null,
      });
      expect(upstream.echo.received).toEqual([]);
    },
  );
});

describe('tenant selection order (specified: header, then cookie, then newest membership)', () => {
  let cookie: string;
  let oldest: { id: string };
  let middle: { id: string };
  let newest: { id: string };
  let foreign: { id: string };
  let userId: string;

  beforeAll(async () => {
    const user = await createAccount(database, 'selector');
    userId = user.id;
    oldest = await createTenant(database, 'Oldest');
    middle = await createTenant(database, 'Middle');
    newest = await createTenant(database, 'Newest');
    foreign = await createTenant(database, 'Foreign');
    await addMember(database, oldest.id, user.id, 'admin');
    await addMember(database, middle.id, user.id, 'member');
    await addMember(database, newest.id, user.id, 'viewer');
    cookie = await signIn(upstream.gateway.app, user.email);
  });

  it('1. the x-tenant-id header wins over the cookie', async () => {
    const res = await request(upstream.gateway.app)
      .get('/api/crm/deals')
      .set('Cookie', `${cookie}; crm_tenant=${middle.id}`)
      .set('x-tenant-id', oldest.id);
    expect(res.status).toBe(200);
    expect(forwardedIdentity()).toEqual({ userId, tenantId: oldest.id, role: 'admin' });
  });

  it('2. without the header, the active-tenant cookie wins over the most recent membership', async () => {
    const res = await request(upstream.gateway.app)
      .get('/api/crm/deals')
      .set('Cookie', `${cookie}; crm_tenant=${middle.id}`);
    expect(res.status).toBe(200);
    expect(forwardedIdentity()).toEqual({ userId, tenantId: middle.id, role: 'member' });
  });

  it('3. without header or cookie, the most recently joined active membership', async () => {
    const res = await request(upstream.gateway.app).get('/api/crm/deals').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(forwardedIdentity()).toEqual({ userId, tenantId: newest.id, role: 'viewer' });
  });

  it('skips a disabled membership when falling back to the most recent one', async () => {
    const user = await createAccount(database, 'fallback');
    const active = await createTenant(database);
    const disabledLater = await createTenant(database);
    await addMember(database, active.id, user.id, 'member');
    await addMember(database, disabledLater.id, user.id, 'member', 'disabled');
    const own = await signIn(upstream.gateway.app, user.email);
    await request(upstream.gateway.app).get('/api/crm/deals').set('Cookie', own).expect(200);
    expect(forwardedIdentity().tenantId).toBe(active.id);
  });

  it.each([
    ['x-tenant-id header', (t: string) => ({ header: t })],
    ['active-tenant cookie', (t: string) => ({ cookie: t })],
  ])(
    'a %s naming a tenant without membership -> 403 TENANT_ACCESS_DENIED, never a fallback',
    async (_name, how) => {
      const named = how(foreign.id) as { header?: string; cookie?: string };
      let req = request(upstream.gateway.app)
        .get('/api/crm/deals')
        .set('Cookie', named.cookie ? `${cookie}; crm_tenant=${named.cookie}` : cookie);
      if (named.header) req = req.set('x-tenant-id', named.header);
      const res = await req;
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'TENANT_ACCESS_DENIED' });
      expect(upstream.echo.received).toEqual([]);
    },
  );

  it('a header that is not a uuid is refused the same way', async () => {
    const res = await request(upstream.gateway.app)
      .get('/api/crm/deals')
      .set('Cookie', cookie)
      .set('x-tenant-id', "' OR 1=1 --");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TENANT_ACCESS_DENIED');
  });
});

/**
 * A member of one tenant, signed in, holding an identity header forged (with the real secret) to
 * say they own another tenant: what the gateway must never forward.
 */
async function memberForgingOwnership(name: string) {
  const user = await createAccount(database, name);
  const mine = await createTenant(database);
  const victim = await createTenant(database);
  await addMember(database, mine.id, user.id, 'member');
  const cookie = await signIn(upstream.gateway.app, user.email);
  const forged = signIdentity(
    { userId: user.id, tenantId: victim.id, role: 'owner' },
    TEST_INTERNAL_TOKEN_SECRET,
  );
  return { user, mine, cookie, forged };
}

describe('identity header and role rules', () => {
  it('replaces a client-sent identity header on Session routes with the gateway-signed one', async () => {
    const { user, mine, cookie, forged } = await memberForgingOwnership('forger');
    await request(upstream.gateway.app)
      .get('/api/crm/deals')
      .set('Cookie', cookie)
      .set(IDENTITY_HEADER, forged)
      .expect(200);
    expect(upstream.echo.received).toHaveLength(1);
    expect(forwardedIdentity()).toEqual({ userId: user.id, tenantId: mine.id, role: 'member' });
  });

  it('strips a client-sent identity header on routes the services check themselves', async () => {
    const forged = signIdentity(
      {
        userId: '00000000-0000-4000-8000-000000000001',
        tenantId: '00000000-0000-4000-8000-000000000002',
        role: 'owner',
      },
      TEST_INTERNAL_TOKEN_SECRET,
    );
    for (const path of [
      '/api/webhooks/billing',
      '/api/mcp',
      '/api/migrate/ingest',
      '/api/public/forms/acme/contact/submit',
    ]) {
      await request(upstream.gateway.app)
        .post(path)
        .set(IDENTITY_HEADER, forged)
        .send({ x: 1 })
        .expect(200);
      expect(upstream.echo.received.at(-1)?.headers[IDENTITY_HEADER]).toBeUndefined();
    }
  });

  // http-proxy does not emit its proxyReq hook for a request with `Expect`: the headers must not
  // depend on it (they once did, and a client's forged header went through untouched).
  it('with Expect: 100-continue too, the client identity header is replaced and the request id sent', async () => {
    const { user, mine, cookie, forged } = await memberForgingOwnership('expecter');
    const res = await postExpectingContinue('/api/crm/deals', {
      cookie,
      [IDENTITY_HEADER]: forged,
    });
    expect(res.status).toBe(200);
    expect(upstream.echo.received).toHaveLength(1);
    expect(forwardedIdentity()).toEqual({ userId: user.id, tenantId: mine.id, role: 'member' });
    expect(upstream.echo.received[0].headers['x-request-id']).toBe(res.requestId);

    const webhook = await postExpectingContinue('/api/webhooks/billing', {
      [IDENTITY_HEADER]: forged,
    });
    expect(webhook.status).toBe(200);
    expect(upstream.echo.received.at(-1)?.headers[IDENTITY_HEADER]).toBeUndefined();
  });

  it('a viewer may read (forwarded) but not write: 403 FORBIDDEN, nothing forwarded', async () => {
    const user = await createAccount(database, 'viewer');
    const tenant = await createTenant(database);
    await addMember(database, tenant.id, user.id, 'viewer');
    const cookie = await signIn(upstream.gateway.app, user.email);
    await request(upstream.gateway.app).get('/api/crm/deals').set('Cookie', cookie).expect(200);
    expect(upstream.echo.received).toHaveLength(1);
    const client = request(upstream.gateway.app);
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const res = await client[method]('/api/crm/deals').set('Cookie', cookie).send({ title: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        success: false,
        code: 'FORBIDDEN',
        message: 'Viewers may only read',
      });
    }
    expect(upstream.echo.received).toHaveLength(1);
  });

  it('forwards the request id so logs of gateway and service line up', async () => {
    const user = await createAccount(database, 'reqid');
    const tenant = await createTenant(database);
    await addMember(database, tenant.id, user.id, 'member');
    const cookie = await signIn(upstream.gateway.app, user.email);
    const res = await request(upstream.gateway.app)
      .get('/api/crm/deals')
      .set('Cookie', cookie)
      .set('x-request-id', 'trace-me-123');
    expect(res.headers['x-request-id']).toBe('trace-me-123');
    expect(upstream.echo.received.at(-1)?.headers['x-request-id']).toBe('trace-me-123');
  });
});
