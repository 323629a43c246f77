import { randomUUID } from 'node:crypto';
import {
  addMember,
  createAccount,
  createTenant,
  type EchoService,
  signIn,
  startEchoService,
  testDb,
  testGateway,
  type TestGateway,
  upstreamsAt,
} from '@crm/test-kit';
import request from 'supertest';

/**
 * Security headers on every gateway response (its own, proxied ones and
 * error envelopes); CORS with credentials only for the configured origins, public form
 * submission open to any origin without credentials.
 */
const APP_ORIGIN = 'https://app.example.com';
const OTHER_ORIGIN = 'https://evil.example.net';
const CUSTOMER_SITE = 'https://shop.customer.example.org';
/** What a browser script may read: rate-limit state, Retry-After, the request id. */
const EXPOSED =
  'Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,X-Request-Id';

describe('gateway security headers and CORS', () => {
  const db = testDb();
  let echo: EchoService;
  let gw: TestGateway;

  beforeAll(async () => {
    echo = await startEchoService();
    // Trailing slash on purpose: configured origins are normalised.
    gw = testGateway({
      CORS_ORIGINS: `${APP_ORIGIN}/, https://admin.example.com`,
      ...upstreamsAt(echo.url),
    });
  });
  afterAll(async () => {
    await gw.close();
    await echo.close();
    await db.close();
  });

  async function signedIn(): Promise<string> {
    const tenant = await createTenant(db, 'CORS test');
    const user = await createAccount(db, 'cors');
    await addMember(db, tenant.id, user.id, 'member');
    return signIn(gw.app, user.email);
  }

  const reached = (path: string) => echo.received.filter((r) => r.url === path);

  function expectSecurityHeaders(res: request.Response): void {
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(res.headers['x-powered-by']).toBeUndefined();
  }

  describe('security headers', () => {
    it('on the gateway’s own responses', async () => {
      const res = await request(gw.app).get('/api/health');
      expect(res.status).toBe(200);
      expectSecurityHeaders(res);
    });

    it('on a proxied response (service-checked route)', async () => {
      const path = `/api/webhooks/provider?probe=${randomUUID()}`;
      const res = await request(gw.app).post(path).send({ event: 'x' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ echoed: true });
      expect(reached(path)).toHaveLength(1);
      expectSecurityHeaders(res);
    });

    it('on a proxied response of a Session route', async () => {
      const cookie = await signedIn();
      const path = `/api/crm/deals?probe=${randomUUID()}`;
      const res = await request(gw.app).get(path).set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect(reached(path)).toHaveLength(1);
      expectSecurityHeaders(res);
    });

    it('on error envelopes (401 on a Session route, 404 on an unknown route)', async () => {
      const unauthorized = await request(gw.app).get('/api/crm/deals');
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expectSecurityHeaders(unauthorized);

      const notFound = await request(gw.app).get('/api/nothing-here');
      expect(notFound.status).toBe(404);
      expect(notFound.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
      expectSecurityHeaders(notFound);
    });
  });

  describe('CORS for the configured origins (with credentials)', () => {
    it('answers a preflight from a configured origin itself, with that origin and credentials', async () => {
      const path = `/api/crm/deals?probe=${randomUUID()}`;
      const res = await request(gw.app)
        .options(path)
        .set('Origin', APP_ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type,x-tenant-id');

      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      expect(res.headers['access-control-allow-headers']).toBe('content-type,x-tenant-id');
      expect(res.headers.vary).toContain('Origin');
      expect(reached(path)).toEqual([]);
    });

    it('every configured origin is allowed, each answered with itself', async () => {
      const res = await request(gw.app)
        .options('/api/auth/sign-in')
        .set('Origin', 'https://admin.example.com')
        .set('Access-Control-Request-Method', 'POST');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://admin.example.com');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
    });

    it('a real request from a configured origin carries the CORS headers (gateway and proxied)', async () => {
      const health = await request(gw.app).get('/api/health').set('Origin', APP_ORIGIN);
      expect(health.status).toBe(200);
      expect(health.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(health.headers['access-control-allow-credentials']).toBe('true');

      const cookie = await signedIn();
      const path = `/api/crm/deals?probe=${randomUUID()}`;
      const proxied = await request(gw.app)
        .get(path)
        .set('Cookie', cookie)
        .set('Origin', APP_ORIGIN);
      expect(proxied.status).toBe(200);
      expect(proxied.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(proxied.headers['access-control-allow-credentials']).toBe('true');
      expect(proxied.headers['access-control-expose-headers']).toBe(EXPOSED);
      expect(proxied.headers['x-ratelimit-limit']).toBe('100000');

      // The web app must be able to read a refusal too (e.g. to send the user to sign-in).
      const refused = await request(gw.app).get('/api/crm/deals').set('Origin', APP_ORIGIN);
      expect(refused.status).toBe(401);
      expect(refused.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(refused.headers['access-control-allow-credentials']).toBe('true');
    });

    it.each([OTHER_ORIGIN, 'https://app.example.com.evil.net', 'http://app.example.com', 'null'])(
      'gives %s no CORS permission (preflight and real request)',
      async (origin) => {
        const path = `/api/crm/deals?probe=${randomUUID()}`;
        const preflight = await request(gw.app)
          .options(path)
          .set('Origin', origin)
          .set('Access-Control-Request-Method', 'POST');
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
        expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
        expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
        expect(reached(path)).toEqual([]);

        const real = await request(gw.app).get('/api/health').set('Origin', origin);
        expect(real.status).toBe(200);
        expect(real.headers['access-control-allow-origin']).toBeUndefined();
        expect(real.headers['access-control-allow-credentials']).toBeUndefined();
        expect(real.headers['access-control-expose-headers']).toBeUndefined();
      },
    );
  });

  describe('CORS on public form submission (any origin, no credentials)', () => {
    it('a preflight from any origin gets * and no allow-credentials', async () => {
      const path = `/api/public/forms/${randomUUID()}/submit`;
      const res = await request(gw.app)
        .options(path)
        .set('Origin', CUSTOMER_SITE)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type');

      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      expect(reached(path)).toEqual([]);
    });

    it('the submission itself, from any origin (configured or not), gets * and no credentials', async () => {
      for (const origin of [CUSTOMER_SITE, APP_ORIGIN]) {
        const path = `/api/public/forms/${randomUUID()}/submit`;
        const res = await request(gw.app)
          .post(path)
          .set('Origin', origin)
          .set('content-type', 'application/json')
          .send('{"email":"lead@example.test"}');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ echoed: true });
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(res.headers['access-control-expose-headers']).toBe(EXPOSED);
        expectSecurityHeaders(res);
        expect(reached(path)).toHaveLength(1);
      }
    });

    it('only the public form prefix is open: a lookalike path is not', async () => {
      const res = await request(gw.app)
        .options('/api/public/formsX/1')
        .set('Origin', CUSTOMER_SITE)
        .set('Access-Control-Request-Method', 'POST');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('without CORS_ORIGINS configured', () => {
    it('no origin gets credentials; public forms stay open', async () => {
      const plain = testGateway(upstreamsAt(echo.url));
      try {
        const preflight = await request(plain.app)
          .options('/api/crm/deals')
          .set('Origin', APP_ORIGIN)
          .set('Access-Control-Request-Method', 'GET');
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
        expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();

        const form = await request(plain.app)
          .options(`/api/public/forms/${randomUUID()}/submit`)
          .set('Origin', CUSTOMER_SITE)
          .set('Access-Control-Request-Method', 'POST');
        expect(form.status).toBe(204);
        expect(form.headers['access-control-allow-origin']).toBe('*');
      } finally {
        await plain.close();
      }
    });
  });
});
