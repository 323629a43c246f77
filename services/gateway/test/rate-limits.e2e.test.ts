import { randomInt, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  createTenant,
  type EchoService,
  PASSWORD,
  signIn,
  startEchoService,
  testDb,
  testGateway,
  type TestGateway,
  upstreamsAt,
} from '@crm/test-kit';
import type { Express } from 'express';
import request from 'supertest';

/**
 * Per-tenant limit (specified) on Session routes (from the plan), per-client-IP limits on
 * public form submission and sign-in, counters shared through Postgres (table rate_limits).
 *
 * Per-IP keys come from req.ip. These gateways are configured as sitting behind one proxy
 * (TRUST_PROXY=1; supertest connects from loopback, standing in for it), so every test sends an
 * X-Forwarded-For of its own and parallel test files never share a counter. Without that
 * setting the header is ignored (see 'which client address counts').
 */
const SMALL_LIMITS = {
  TRUST_PROXY: '1',
  RATE_LIMIT_PLANS: 'free=3',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '5',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '2',
  RATE_LIMIT_SIGN_IN_PER_MINUTE: '2',
};

const usedIps = new Set<string>();
/** A client address (TEST-NET-2/3) no other test uses. */
function uniqueIp(): string {
  for (;;) {
    const ip = `${randomInt(2) ? '198.51.100' : '203.0.113'}.${randomInt(1, 255)}`;
    if (!usedIps.has(ip)) {
      usedIps.add(ip);
      return ip;
    }
  }
}

describe('gateway rate limits', () => {
  const db = testDb();
  let echo: EchoService;
  let gw: TestGateway;
  /** Generous limits: signs users in without touching the small sign-in limit under test. */
  let signInGw: TestGateway;
  const others: TestGateway[] = [];

  beforeAll(async () => {
    echo = await startEchoService();
    gw = testGateway({ ...SMALL_LIMITS, ...upstreamsAt(echo.url) });
    signInGw = testGateway(upstreamsAt(echo.url));
  });
  afterAll(async () => {
    for (const g of [gw, signInGw, ...others]) await g.close();
    await echo.close();
    await db.close();
  });

  function rateLimited() {
    return {
      success: false,
      error: 'Too many requests',
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringMatching(/^Rate limit exceeded; retry after \d+ seconds$/),
      details: { retryAfter: expect.any(Number) },
    };
  }

  /** X-RateLimit-* headers: limit, remaining, and a reset within the one-minute window. */
  function expectLimitHeaders(res: request.Response, limit: number, remaining: number): void {
    expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(Number.isInteger(reset)).toBe(true);
    const nowSeconds = Date.now() / 1000;
    expect(reset).toBeGreaterThanOrEqual(Math.floor(nowSeconds));
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 60);
  }

  /** The 429 answer: envelope, retryAfter in seconds (> 0) equal to the Retry-After header. */
  function expectRefused(res: request.Response, limit: number): void {
    expect(res.status).toBe(429);
    expect(res.body).toEqual(rateLimited());
    const retryAfter = res.body.details.retryAfter as number;
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.body.message).toBe(`Rate limit exceeded; retry after ${retryAfter} seconds`);
    expect(res.headers['retry-after']).toBe(String(retryAfter));
    expectLimitHeaders(res, limit, 0);
  }

  async function signedInTenant(plan?: string) {
    const tenant = await createTenant(db, 'Rate limit test');
    if (plan) {
      await withSystemScope(db.db, (trx) =>
        trx.updateTable('tenants').set({ plan }).where('id', '=', tenant.id).execute(),
      );
    }
    const user = await createAccount(db, 'limited');
    await addMember(db, tenant.id, user.id, 'member');
    return { tenantId: tenant.id, user, cookie: await signIn(signInGw.app, user.email) };
  }

  const reached = (path: string) => echo.received.filter((r) => r.url === path);

  describe('per tenant on Session routes', () => {
    it('allows the plan limit, then 429 RATE_LIMIT_EXCEEDED with Retry-After and X-RateLimit-*', async () => {
      const { cookie } = await signedInTenant();
      const path = `/api/crm/deals?probe=${randomUUID()}`;

      for (const remaining of [2, 1, 0]) {
        const res = await request(gw.app).get(path).set('Cookie', cookie);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ echoed: true });
        expectLimitHeaders(res, 3, remaining);
      }
      const refused = await request(gw.app).get(path).set('Cookie', cookie);
      expectRefused(refused, 3);
      // Writes and other Session routes of the tenant share the same counter.
      const write = await request(gw.app)
        .post('/api/automations')
        .set('Cookie', cookie)
        .send({ name: 'x' });
      expectRefused(write, 3);

      expect(reached(path)).toHaveLength(3);
      expect(echo.received.filter((r) => r.url === '/api/automations')).toEqual([]);
    });

    it('a plan not in RATE_LIMIT_PLANS gets RATE_LIMIT_DEFAULT_PER_MINUTE', async () => {
      const { cookie } = await signedInTenant('enterprise');
      const path = `/api/crm/deals?probe=${randomUUID()}`;

      for (const remaining of [4, 3, 2, 1, 0]) {
        const res = await request(gw.app).get(path).set('Cookie', cookie);
        expect(res.status).toBe(200);
        expectLimitHeaders(res, 5, remaining);
      }
      expectRefused(await request(gw.app).get(path).set('Cookie', cookie), 5);
      expect(reached(path)).toHaveLength(5);
    });

    it('counts per tenant: another tenant of the same user has its own counter', async () => {
      const { user, tenantId, cookie } = await signedInTenant();
      const second = await createTenant(db, 'Second tenant');
      await addMember(db, second.id, user.id, 'member');
      const path = `/api/crm/deals?probe=${randomUUID()}`;

      for (let i = 0; i < 3; i++) {
        const res = await request(gw.app)
          .get(path)
          .set('Cookie', cookie)
          .set('x-tenant-id', tenantId);
        expect(res.status).toBe(200);
      }
      expectRefused(
        await request(gw.app).get(path).set('Cookie', cookie).set('x-tenant-id', tenantId),
        3,
      );

      const other = await request(gw.app)
        .get(path)
        .set('Cookie', cookie)
        .set('x-tenant-id', second.id);
      expect(other.status).toBe(200);
      expectLimitHeaders(other, 3, 2);
      expect(reached(path)).toHaveLength(4);
    });

    it('counts per tenant: different users of one tenant share the counter', async () => {
      const { tenantId, cookie } = await signedInTenant();
      const colleague = await createAccount(db, 'colleague');
      await addMember(db, tenantId, colleague.id, 'admin');
      const colleagueCookie = await signIn(signInGw.app, colleague.email);
      const path = `/api/crm/deals?probe=${randomUUID()}`;

      expect((await request(gw.app).get(path).set('Cookie', cookie)).status).toBe(200);
      expect((await request(gw.app).get(path).set('Cookie', colleagueCookie)).status).toBe(200);
      expect((await request(gw.app).get(path).set('Cookie', cookie)).status).toBe(200);
      expectRefused(await request(gw.app).get(path).set('Cookie', colleagueCookie), 3);
      expect(reached(path)).toHaveLength(3);
    });

    it('two gateway instances enforce one limit: the counter lives in Postgres', async () => {
      const second = testGateway({ ...SMALL_LIMITS, ...upstreamsAt(echo.url) });
      others.push(second);
      const { tenantId, cookie } = await signedInTenant();
      const path = `/api/crm/deals?probe=${randomUUID()}`;
      const via = (app: Express) => request(app).get(path).set('Cookie', cookie);

      const a = await via(gw.app);
      const b = await via(second.app);
      const c = await via(gw.app);
      expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
      expectLimitHeaders(b, 3, 1);
      expectLimitHeaders(c, 3, 0);
      expectRefused(await via(second.app), 3);
      expectRefused(await via(gw.app), 3);
      expect(reached(path)).toHaveLength(3);

      const rows = await sql<{ key: string; points: number; expire: string }>`
        select key, points, expire from rate_limits where key like ${`%${tenantId}`}`.execute(
        db.db,
      );
      expect(rows.rows).toEqual([
        { key: `tenant:3:${tenantId}`, points: 5, expire: expect.any(String) },
      ]);
      expect(Number(rows.rows[0].expire)).toBeGreaterThan(Date.now() - 1000);
    });

    it('requests refused before tenant resolution (no session) do not count', async () => {
      const { cookie } = await signedInTenant();
      const path = `/api/crm/deals?probe=${randomUUID()}`;
      for (let i = 0; i < 5; i++) {
        expect((await request(gw.app).get(path)).status).toBe(401);
      }
      const res = await request(gw.app).get(path).set('Cookie', cookie);
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 3, 2);
    });
  });

  describe('per client IP on public form submission', () => {
    it('allows RATE_LIMIT_PUBLIC_PER_MINUTE per IP, then 429; another IP is unaffected', async () => {
      const ip = uniqueIp();
      const path = `/api/public/forms/${randomUUID()}/submit`;
      const submit = (from: string) =>
        request(gw.app)
          .post(path)
          .set('X-Forwarded-For', from)
          .set('content-type', 'application/json')
          .send('{"email":"lead@example.test"}');

      for (const remaining of [1, 0]) {
        const res = await submit(ip);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ echoed: true });
        expectLimitHeaders(res, 2, remaining);
      }
      expectRefused(await submit(ip), 2);
      expect(reached(path)).toHaveLength(2);

      const other = await submit(uniqueIp());
      expect(other.status).toBe(200);
      expectLimitHeaders(other, 2, 1);
      expect(reached(path)).toHaveLength(3);

      const rows = await sql<{ key: string; points: number }>`
        select key, points from rate_limits where key = ${`public-ip:2:${ip}`}`.execute(db.db);
      expect(rows.rows).toEqual([{ key: `public-ip:2:${ip}`, points: 3 }]);
    });

    it('an X-Forwarded-For that is no address counts against the peer, in the shared counter', async () => {
      const path = `/api/public/forms/${randomUUID()}/submit`;
      const submit = (forwardedFor: string) =>
        request(gw.app).post(path).set('X-Forwarded-For', forwardedFor).send({});
      // Longer than a counter key may be: it used to fail in Postgres and fall back to memory.
      const first = await submit('x'.repeat(4000));
      expect(first.status).toBe(200);
      expectLimitHeaders(first, 2, 1);
      expectLimitHeaders(await submit('not an address'), 2, 0);
      expectRefused(await submit('x'.repeat(4000)), 2);

      const rows = await sql<{ key: string; points: number }>`
        select key, points from rate_limits where key like 'public-ip:2:%'
           and key not like 'public-ip:2:198.51.100.%' and key not like 'public-ip:2:203.0.113.%'`.execute(
        db.db,
      );
      expect(rows.rows).toEqual([
        { key: expect.stringMatching(/^public-ip:2:(::ffff:)?127\.0\.0\.1$/), points: 3 },
      ]);
    });

    it('a signed-in user does not escape the per-IP limit on public routes', async () => {
      const { cookie } = await signedInTenant();
      const ip = uniqueIp();
      const path = `/api/public/forms/${randomUUID()}/submit`;
      const submit = () =>
        request(gw.app).post(path).set('X-Forwarded-For', ip).set('Cookie', cookie).send({});
      expect((await submit()).status).toBe(200);
      expect((await submit()).status).toBe(200);
      expectRefused(await submit(), 2);
    });
  });

  describe('per client IP on sign-in (brute-force guard)', () => {
    it('wrong passwords count: after the limit even the right password gets 429', async () => {
      const user = await createAccount(db, 'target');
      const ip = uniqueIp();
      const attempt = (password: string, from = ip) =>
        request(gw.app)
          .post('/api/auth/sign-in')
          .set('X-Forwarded-For', from)
          .send({ email: user.email, password });

      for (const remaining of [1, 0]) {
        const res = await attempt('wrong password!');
        expect(res.status).toBe(401);
        expectLimitHeaders(res, 2, remaining);
      }
      const blocked = await attempt(PASSWORD);
      expectRefused(blocked, 2);
      expect(blocked.headers['set-cookie']).toBeUndefined();

      // An unknown email from the same IP is refused the same way.
      const unknown = await request(gw.app)
        .post('/api/auth/sign-in')
        .set('X-Forwarded-For', ip)
        .send({ email: `nobody-${randomUUID()}@example.test`, password: PASSWORD });
      expectRefused(unknown, 2);

      // Another client is not locked out.
      const elsewhere = await attempt(PASSWORD, uniqueIp());
      expect(elsewhere.status).toBe(200);
      expectLimitHeaders(elsewhere, 2, 1);
      expect(elsewhere.headers['set-cookie']).toBeDefined();
    });

    it('the sign-in counter is shared by gateway instances', async () => {
      const second = testGateway({ ...SMALL_LIMITS, ...upstreamsAt(echo.url) });
      others.push(second);
      const user = await createAccount(db, 'shared');
      const ip = uniqueIp();
      const attempt = (app: Express) =>
        request(app)
          .post('/api/auth/sign-in')
          .set('X-Forwarded-For', ip)
          .send({ email: user.email, password: 'wrong password!' });

      expect((await attempt(gw.app)).status).toBe(401);
      expect((await attempt(second.app)).status).toBe(401);
      expectRefused(await attempt(gw.app), 2);
      expectRefused(await attempt(second.app), 2);
    });
  });
  describe('which client address counts (TRUST_PROXY)', () => {
    /** Sign-in attempts, each with another X-Forwarded-For, for one unknown email. */
    async function rotatingForwardedFor(app: Express, attempts: number) {
      const email = `nobody-${randomUUID()}@example.test`;
      const statuses: number[] = [];
      for (let i = 0; i < attempts; i++) {
        const res = await request(app)
          .post('/api/auth/sign-in')
          .set('X-Forwarded-For', uniqueIp())
          .send({ email, password: 'wrong password!' });
        statuses.push(res.status);
      }
      return statuses;
    }

    it('unset: X-Forwarded-For is ignored, so rotating it does not escape the per-IP limit', async () => {
      // A limit no other test uses: the counter is the loopback peer's own.
      const direct = testGateway({ RATE_LIMIT_SIGN_IN_PER_MINUTE: '3', ...upstreamsAt(echo.url) });
      others.push(direct);
      expect(direct.config.TRUST_PROXY).toBe(false);

      expect(await rotatingForwardedFor(direct.app, 5)).toEqual([401, 401, 401, 429, 429]);
      const rows = await sql<{ key: string }>`
        select key from rate_limits where key like 'sign-in-ip:3:%'`.execute(db.db);
      expect(rows.rows).toEqual([
        { key: expect.stringMatching(/^sign-in-ip:3:(::ffff:)?127\.0\.0\.1$/) },
      ]);
    });

    it('1 hop: the address the trusted proxy forwarded is the one counted', async () => {
      const behindProxy = testGateway({
        TRUST_PROXY: '1',
        RATE_LIMIT_SIGN_IN_PER_MINUTE: '4',
        ...upstreamsAt(echo.url),
      });
      others.push(behindProxy);
      expect(behindProxy.config.TRUST_PROXY).toBe(1);

      expect(await rotatingForwardedFor(behindProxy.app, 5)).toEqual([401, 401, 401, 401, 401]);
      const ip = uniqueIp();
      // The client's own entry in front of the proxy's is not trusted: only the last hop counts.
      const res = await request(behindProxy.app)
        .post('/api/auth/sign-in')
        .set('X-Forwarded-For', `${uniqueIp()}, ${ip}`)
        .send({ email: `nobody-${randomUUID()}@example.test`, password: 'wrong password!' });
      expect(res.status).toBe(401);
      const rows = await sql<{ key: string; points: number }>`
        select key, points from rate_limits where key = ${`sign-in-ip:4:${ip}`}`.execute(db.db);
      expect(rows.rows).toEqual([{ key: `sign-in-ip:4:${ip}`, points: 1 }]);
    });
  });
});
