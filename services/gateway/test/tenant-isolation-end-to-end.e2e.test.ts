import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@crm/shared/config';
import { withSystemScope, withTenant } from '@crm/shared/db';
import { IDENTITY_HEADER, signIdentity } from '@crm/shared/identity';
import { closeServer, listen } from '@crm/shared/service';
import {
  addMember,
  captureLogger,
  createAccount,
  createTenant,
  outboxEvents,
  signIn,
  TEST_INTERNAL_TOKEN_SECRET,
  testAppDeps,
  testDb,
  testGateway,
  type TestGateway,
  upstreamsAt,
} from '@crm/test-kit';
import request from 'supertest';
import { service as crmApi } from '../../crm-api/src/main';
import { PROXY_TABLE } from '@crm/shared/routes';

/**
 * The gateway and a real crm-api, both listening: a user of tenant A cannot read or write
 * tenant B's data through any Session route that exists now, whatever header or cookie they
 * send, and crm-api itself refuses callers that bypass the gateway.
 */
const database = testDb();
const crmLogs = captureLogger('info');
const crmDeps = testAppDeps({ logger: crmLogs.logger });
let crmServer: Server;
let crmUrl: string;
let gateway: TestGateway;
let gatewayServer: Server;
let tenantA: { id: string };
let tenantB: { id: string };
let cookieA: string;
let userA: { id: string; email: string };
let ownerB: { id: string };
let dealA: string;
let dealB: string;

const SESSION_PATHS = [
  ...PROXY_TABLE.filter((r) => r.auth === 'session').flatMap((r) => r.prefixes),
  '/api/crm/deals',
  '/api/auth/members',
];

beforeAll(async () => {
  crmServer = await listen(
    crmApi.createApp(crmDeps, loadConfig('crm-api', crmApi.configSchema, {})),
    0,
    '127.0.0.1',
  );
  crmUrl = `http://127.0.0.1:${(crmServer.address() as AddressInfo).port}`;
  gateway = testGateway(upstreamsAt(crmUrl));
  gatewayServer = await listen(gateway.app, 0, '127.0.0.1');
  tenantA = await createTenant(database, 'Tenant A');
  tenantB = await createTenant(database, 'Tenant B');
  userA = await createAccount(database, 'alice');
  ownerB = await createAccount(database, 'bob');
  await addMember(database, tenantA.id, userA.id, 'owner');
  await addMember(database, tenantB.id, ownerB.id, 'owner');
  cookieA = await signIn(gateway.app, userA.email);
  [dealA, dealB] = await Promise.all(
    [tenantA, tenantB].map((t, i) =>
      withTenant(database.db, t.id, async (trx) => {
        const row = await trx
          .insertInto('crm_deals')
          .values({
            tenant_id: t.id,
            title: i === 0 ? 'A deal' : 'B secret deal',
            custom_fields: '{}',
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return row.id;
      }),
    ),
  );
});

afterAll(async () => {
  await closeServer(gatewayServer, 1000);
  await closeServer(crmServer, 1000);
  await gateway.close();
  await crmDeps.closeAll();
  await database.close();
});

function gatewayUrl() {
  return `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
}

/** Tenant ids crm-api logged requests for (each request's completion line carries it). */
function tenantsSeenByCrmApi(): string[] {
  return crmLogs.lines().flatMap((l) => (typeof l.tenantId === 'string' ? [l.tenantId] : []));
}

async function rowsOfTenantB() {
  const events = (await outboxEvents(database, tenantB.id)).map(({ envelope }) => envelope.id);
  return withSystemScope(database.db, async (trx) => ({
    members: await trx
      .selectFrom('tenant_users')
      .select(['user_id', 'role', 'status'])
      .where('tenant_id', '=', tenantB.id)
      .orderBy('user_id')
      .execute(),
    deals: await trx
      .selectFrom('crm_deals')
      .selectAll()
      .where('tenant_id', '=', tenantB.id)
      .execute(),
    events,
  }));
}

describe('tenant A user against tenant B, end to end', () => {
  it("a legitimate request reaches crm-api with tenant A's identity and sees only A's deals", async () => {
    const res = await request(gatewayUrl()).get('/api/crm/deals').set('Cookie', cookieA);
    expect(res.status).toBe(200);
    expect(res.body.deals.map((d: { id: string }) => d.id)).toEqual([dealA]);
    expect(tenantsSeenByCrmApi()).toContain(tenantA.id);
  });

  it("tenant B's deal is a 404 for tenant A, by id, on read, update and delete", async () => {
    const client = request(gatewayUrl());
    for (const method of ['get', 'patch', 'delete'] as const) {
      const res = await client[method](`/api/crm/deals/${dealB}`)
        .set('Cookie', cookieA)
        .send({ title: 'stolen' });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    const stillThere = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('crm_deals').select('title').where('id', '=', dealB).executeTakeFirst(),
    );
    expect(stillThere).toEqual({ title: 'B secret deal' });
  });

  it.each(SESSION_PATHS)(
    '%s: header, cookie or forged identity naming tenant B never gets through',
    async (path) => {
      const before = await rowsOfTenantB();
      const forged = signIdentity(
        { userId: userA.id, tenantId: tenantB.id, role: 'owner' },
        TEST_INTERNAL_TOKEN_SECRET,
      );
      const forgedWrongSecret = signIdentity(
        { userId: userA.id, tenantId: tenantB.id, role: 'owner' },
        'x'.repeat(40),
      );
      const attempts = [
        { headers: { 'x-tenant-id': tenantB.id, Cookie: cookieA } },
        { headers: { Cookie: `${cookieA}; crm_tenant=${tenantB.id}` } },
        { headers: { 'x-tenant-id': tenantB.id, Cookie: `${cookieA}; crm_tenant=${tenantB.id}` } },
      ];
      const client = request(gatewayUrl());
      for (const method of ['get', 'post', 'patch', 'delete'] as const) {
        for (const { headers } of attempts) {
          const res = await client[method](path)
            .set(headers)
            .send({ email: 'x@example.test', role: 'owner' });
          expect(res.status).toBe(403);
          expect(res.body).toMatchObject({ success: false, code: 'TENANT_ACCESS_DENIED' });
        }
        // A forged identity header beside A's own session is replaced by A's real identity...
        const withForged = await client[method](path)
          .set({ Cookie: cookieA, [IDENTITY_HEADER]: forged })
          .send({ email: 'x@example.test', role: 'owner' });
        // ...so whatever it answers is about tenant A, never B.
        expect(JSON.stringify(withForged.body)).not.toContain(tenantB.id);
        expect(JSON.stringify(withForged.body)).not.toContain(ownerB.id);
        const withBadSecret = await client[method](path).set({
          [IDENTITY_HEADER]: forgedWrongSecret,
        });
        expect(withBadSecret.status).toBe(401);
      }
      expect(tenantsSeenByCrmApi()).not.toContain(tenantB.id);
      expect(await rowsOfTenantB()).toEqual(before);
    },
  );

  it("the members route shows tenant A's members only", async () => {
    const res = await request(gatewayUrl()).get('/api/auth/members').set('Cookie', cookieA);
    expect(res.status).toBe(200);
    expect(res.body.data.members.map((m: { userId: string }) => m.userId)).toEqual([userA.id]);
  });
});

describe('crm-api reached directly, bypassing the gateway', () => {
  it.each(['/api/crm/deals', '/api/v1/import/leads', '/api/exports'])(
    '%s without an identity header -> 401 Unauthorized',
    async (path) => {
      const res = await request(crmUrl)
        .post(path)
        .set('x-tenant-id', tenantB.id)
        .send({ leads: [] });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        success: false,
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
      });
    },
  );

  it('with an identity header signed by another secret -> 401', async () => {
    const forged = signIdentity(
      { userId: userA.id, tenantId: tenantB.id, role: 'owner' },
      'y'.repeat(40),
    );
    const res = await request(crmUrl).get('/api/crm/deals').set(IDENTITY_HEADER, forged);
    expect(res.status).toBe(401);
  });

  it('with an expired identity header -> 401', async () => {
    const expired = signIdentity(
      { userId: userA.id, tenantId: tenantA.id, role: 'owner' },
      TEST_INTERNAL_TOKEN_SECRET,
      { now: Date.now() - 120_000 },
    );
    const res = await request(crmUrl).get('/api/crm/deals').set(IDENTITY_HEADER, expired);
    expect(res.status).toBe(401);
  });
});
