import { randomUUID } from 'node:crypto';
import {
  addMember,
  createAccount,
  createTenant,
  type EchoService,
  eventually,
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
 * Each gateway replica caches resolved sessions for at most
 * SESSION_CACHE_TTL_MS. Two gateway apps over one database, with a cache window (10 s) longer
 * than the wait below (5 s), so a refusal on the other replica can only come from the NOTIFY
 * sent with the change, not from the entry running out.
 */
const LONG_WINDOW = { SESSION_CACHE_TTL_MS: '10000' };
const WITHIN = 5000;

describe('gateway session cache across replicas', () => {
  const db = testDb();
  let echo: EchoService;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    echo = await startEchoService();
    a = testGateway({ ...LONG_WINDOW, ...upstreamsAt(echo.url) });
    b = testGateway({ ...LONG_WINDOW, ...upstreamsAt(echo.url) });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await echo.close();
    await db.close();
  });

  const probe = () => `/api/crm/deals?probe=${randomUUID()}`;
  const get = (app: Express, cookie: string) => request(app).get(probe()).set('Cookie', cookie);

  async function member(role: 'owner' | 'member' = 'member') {
    const tenant = await createTenant(db, 'Cache test');
    const user = await createAccount(db, 'cached');
    await addMember(db, tenant.id, user.id, role);
    return { tenantId: tenant.id, user, cookie: await signIn(a.app, user.email) };
  }

  it('a signed-out session is refused at once on this replica and within the window on another', async () => {
    const { cookie } = await member();
    // Both replicas have resolved (and cached) the session.
    expect((await get(a.app, cookie)).status).toBe(200);
    expect((await get(b.app, cookie)).status).toBe(200);
    expect((await get(b.app, cookie)).status).toBe(200);

    const out = await request(a.app).post('/api/auth/sign-out').set('Cookie', cookie);
    expect(out.status).toBe(200);

    const here = await get(a.app, cookie);
    expect(here.status).toBe(401);
    expect(here.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    await eventually(async () => expect((await get(b.app, cookie)).status).toBe(401), WITHIN);
  });

  it('a disabled member is refused within the window on another replica', async () => {
    const { tenantId, user, cookie } = await member();
    const owner = await createAccount(db, 'owner');
    await addMember(db, tenantId, owner.id, 'owner');
    const ownerCookie = await signIn(a.app, owner.email);
    expect((await get(b.app, cookie)).status).toBe(200);

    const res = await request(a.app)
      .patch(`/api/auth/members/${user.id}`)
      .set('Cookie', ownerCookie)
      .send({ status: 'disabled' });
    expect(res.status).toBe(200);

    expect((await get(a.app, cookie)).status).toBe(403);
    const refused = await eventually(async () => {
      const later = await get(b.app, cookie);
      expect(later.status).toBe(403);
      return later;
    }, WITHIN);
    expect(refused.body).toMatchObject({
      success: false,
      error: 'No active tenant membership',
      code: 'TENANT_ACCESS_DENIED',
    });
  });

  it('a changed role applies within the window on another replica (viewer writes refused)', async () => {
    const { tenantId, user, cookie } = await member();
    const owner = await createAccount(db, 'owner');
    await addMember(db, tenantId, owner.id, 'owner');
    const ownerCookie = await signIn(a.app, owner.email);
    const write = (app: Express) =>
      request(app).post(probe()).set('Cookie', cookie).send({ title: 'x' });
    expect((await write(b.app)).status).toBe(200);

    const res = await request(a.app)
      .patch(`/api/auth/members/${user.id}`)
      .set('Cookie', ownerCookie)
      .send({ role: 'viewer' });
    expect(res.status).toBe(200);

    expect((await write(a.app)).status).toBe(403);
    await eventually(async () => expect((await write(b.app)).status).toBe(403), WITHIN);
    // Reads still pass as a viewer.
    expect((await get(b.app, cookie)).status).toBe(200);
  });
});
