import {
  addMember,
  createAccount,
  createTenant,
  signIn,
  startEchoService,
  testDb,
  testGateway,
  upstreamsAt,
  type EchoService,
  type TestGateway,
} from '@crm/test-kit';
import request from 'supertest';
import { isUntrustedCrossSite } from '../src/security/cross-site-guard';

/**
 * A state-changing request carrying the session cookie is taken only from the gateway's own
 * origin, a configured CORS origin, or a client that is no browser; a request without the
 * cookie (MCP, migrate, providers, public forms) is not the cookie's to protect. The browser
 * version of the attack is cross-site-forms-in-chromium.e2e.test.ts; here every header form
 * is driven through the real gateway in front of an echo service that records what reached it.
 */
const OWN = 'http://127.0.0.1:8080';
const CONSOLE = 'https://console.example.com';
const SIBLING = 'http://127.0.0.1:9999';

describe('isUntrustedCrossSite', () => {
  const trusted = (origin: string) => origin === OWN || origin === CONSOLE;
  const FORM = 'application/x-www-form-urlencoded';
  it.each([
    // Sec-Fetch-Site decides first; Origin may rescue a configured cross-origin console.
    [{ 'sec-fetch-site': 'same-origin', origin: OWN }, false],
    [{ 'sec-fetch-site': 'none' }, false],
    [{ 'sec-fetch-site': 'same-site', origin: SIBLING }, true],
    [{ 'sec-fetch-site': 'same-site' }, true],
    [{ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }, true],
    [{ 'sec-fetch-site': 'cross-site', origin: CONSOLE }, false],
    [{ 'sec-fetch-site': 'something-new', origin: SIBLING }, true],
    // Older browsers: Origin alone.
    [{ origin: OWN }, false],
    [{ origin: CONSOLE }, false],
    [{ origin: SIBLING }, true],
    [{ origin: 'null' }, true],
    // Neither header: an API client, unless the body is one only a form sends.
    [{}, false],
    [{ 'content-type': 'application/json' }, false],
    [{ 'content-type': FORM }, true],
    [{ 'content-type': 'multipart/form-data; boundary=x' }, true],
    [{ 'content-type': 'Text/Plain; charset=utf-8' }, true],
  ])('%j -> refused: %s', (headers, refused) => {
    expect(isUntrustedCrossSite(headers, trusted)).toBe(refused);
  });
});

describe('through the gateway', () => {
  const db = testDb();
  let echo: EchoService;
  let gw: TestGateway;
  let cookie: string;

  beforeAll(async () => {
    echo = await startEchoService();
    gw = testGateway({ CORS_ORIGINS: CONSOLE, ...upstreamsAt(echo.url) });
    const tenant = await createTenant(db, 'cross-site');
    const user = await createAccount(db, 'cross-site');
    await addMember(db, tenant.id, user.id, 'owner');
    cookie = await signIn(gw.app, user.email);
  });
  afterAll(async () => {
    await gw.close();
    await echo.close();
    await db.close();
  });

  const reached = (path: string) => echo.received.filter((r) => r.url === path).length;

  it('refuses a same-site page’s write with the cookie before the service sees it', async () => {
    const path = '/api/crm/deals?from=sibling';
    const res = await request(gw.app)
      .post(path)
      .set({ Cookie: cookie, 'Sec-Fetch-Site': 'same-site', Origin: SIBLING })
      .type('form')
      .send('title=forged');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      error: 'Cross-site request refused',
      code: 'FORBIDDEN',
      message:
        'A request that changes something with the session cookie must come from the platform’s own pages or an origin listed in CORS_ORIGINS.',
      details: { origin: SIBLING, secFetchSite: 'same-site' },
    });
    expect(reached(path)).toBe(0);
  });

  it('refuses a forged sign-out: the session stays valid', async () => {
    const res = await request(gw.app)
      .post('/api/auth/sign-out')
      .set({ Cookie: cookie, Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await request(gw.app).get('/api/auth/me').set('Cookie', cookie)).status).toBe(200);
  });

  it.each([
    ['the configured console origin', { 'Sec-Fetch-Site': 'cross-site', Origin: CONSOLE }],
    ['the gateway’s own origin (Host)', { 'Sec-Fetch-Site': 'same-origin' }],
    ['an Origin equal to the addressed host', { Origin: 'http://gateway.test' }],
    ['an API client (no browser headers)', {}],
  ])('passes a write from %s', async (_name, headers) => {
    const path = `/api/crm/deals?case=${encodeURIComponent(_name)}`;
    const res = await request(gw.app)
      .post(path)
      .set({ Cookie: cookie, Host: 'gateway.test', ...headers })
      .send({ title: 'fine' });
    expect(res.status).toBe(200);
    expect(reached(path)).toBe(1);
  });

  it('leaves reads alone, even from another site', async () => {
    const path = '/api/crm/deals?read=1';
    const res = await request(gw.app)
      .get(path)
      .set({ Cookie: cookie, 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' });
    expect(res.status).toBe(200);
    expect(reached(path)).toBe(1);
  });

  it.each([
    ['/api/mcp', { Authorization: 'Bearer key' }],
    ['/api/migrate/ingest', { 'x-svc-signature': 'sig' }],
    ['/api/webhooks/network', {}],
    ['/api/public/forms/acme/contact/submit', { Cookie: 'crm_session=whatever' }],
  ])(
    'machine and public routes are not its business: %s reaches the service',
    async (path, headers) => {
      const res = await request(gw.app)
        .post(path)
        .set({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://customer.example', ...headers })
        .send({ any: 'thing' });
      expect(res.status).toBe(200);
      expect(reached(path)).toBe(1);
    },
  );
});
