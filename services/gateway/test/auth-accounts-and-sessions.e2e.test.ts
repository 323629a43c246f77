import { sha256Hex } from '@crm/shared/crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  cookieHeader,
  createAccount,
  createTenant,
  PASSWORD,
  signIn,
  testDb,
  testGateway,
} from '@crm/test-kit';
import request from 'supertest';

const database = testDb();
const gateway = testGateway();
const { app } = gateway;

afterAll(async () => {
  await gateway.close();
  await database.close();
});

function uniqueEmail(name: string) {
  return `${name}-${Math.random().toString(36).slice(2, 10)}@Example.test`;
}

async function userRow(email: string) {
  return withSystemScope(database.db, (trx) =>
    trx.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst(),
  );
}

describe('POST /api/auth/sign-up', () => {
  it('creates the user, a tenant with a slug from its name, an active owner membership, and signs in', async () => {
    const email = uniqueEmail('founder');
    const res = await request(app).post('/api/auth/sign-up').send({
      email,
      password: 'long enough password',
      name: 'Ada',
      tenantName: 'Ünïcode Widgets & Co.',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Account created',
      data: {
        user: { id: expect.any(String), email: email.toLowerCase(), name: 'Ada' },
        tenant: {
          id: expect.any(String),
          slug: expect.stringMatching(/^unicode-widgets-co(-[0-9a-f]{6})?$/),
          name: 'Ünïcode Widgets & Co.',
          plan: 'free',
        },
      },
    });
    const membership = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('tenant_users')
        .selectAll()
        .where('user_id', '=', res.body.data.user.id)
        .execute(),
    );
    expect(membership).toEqual([
      expect.objectContaining({
        tenant_id: res.body.data.tenant.id,
        role: 'owner',
        status: 'active',
      }),
    ]);
    const cookie = cookieHeader(res.headers['set-cookie']);
    const me = await request(app).get('/api/auth/me').set('Cookie', cookie);
    expect(me.status).toBe(200);
    expect(me.body.data.selectedTenant).toMatchObject({
      tenantId: res.body.data.tenant.id,
      role: 'owner',
    });
  });

  it('stores only a scrypt hash of the password', async () => {
    const email = uniqueEmail('hash');
    await request(app)
      .post('/api/auth/sign-up')
      .send({ email, password: 'my secret passphrase', tenantName: 'Hash Co' })
      .expect(201);
    const row = await userRow(email);
    expect(row?.password_hash).toMatch(/^scrypt\$/);
    expect(row?.password_hash).not.toContain('my secret passphrase');
  });

  it('gives a second tenant with the same name a different slug', async () => {
    const a = await request(app)
      .post('/api/auth/sign-up')
      .send({ email: uniqueEmail('a'), password: 'password-1', tenantName: 'Same Name Ltd' });
    const b = await request(app)
      .post('/api/auth/sign-up')
      .send({ email: uniqueEmail('b'), password: 'password-1', tenantName: 'Same Name Ltd' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.tenant.slug).not.toBe(b.body.data.tenant.slug);
  });

  it('answers 409 ALREADY_EXISTS for an email already registered (any case) and writes nothing', async () => {
    const email = uniqueEmail('dup');
    await request(app)
      .post('/api/auth/sign-up')
      .send({ email, password: 'password-1', tenantName: 'First' })
      .expect(201);
    const tenantsBefore = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('tenants').select('id').where('name', '=', 'Second dup').execute(),
    );
    const res = await request(app)
      .post('/api/auth/sign-up')
      .send({ email: email.toUpperCase(), password: 'password-2', tenantName: 'Second dup' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      success: false,
      code: 'ALREADY_EXISTS',
      message: 'An account with this email already exists',
    });
    const tenantsAfter = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('tenants').select('id').where('name', '=', 'Second dup').execute(),
    );
    expect(tenantsAfter).toEqual(tenantsBefore);
  });

  it('answers 400 VALIDATION_ERROR for a password shorter than 8 characters and writes nothing', async () => {
    const email = uniqueEmail('short');
    const res = await request(app)
      .post('/api/auth/sign-up')
      .send({ email, password: 'short', tenantName: 'Shorty' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.details.issues).toContainEqual(
      expect.objectContaining({ path: 'password', message: 'must be at least 8 characters' }),
    );
    expect(await userRow(email)).toBeUndefined();
  });

  it('answers 400 INVALID_JSON for a malformed body', async () => {
    const res = await request(app)
      .post('/api/auth/sign-up')
      .set('content-type', 'application/json')
      .send('{"email": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON');
  });
});

describe('POST /api/auth/sign-in', () => {
  it('answers 200 with the user and their tenants and sets an HttpOnly SameSite=Lax session cookie', async () => {
    const user = await createAccount(database, 'signin');
    const tenant = await createTenant(database, 'Sign-in tenant');
    await addMember(database, tenant.id, user.id, 'member');
    const res = await request(app)
      .post('/api/auth/sign-in')
      .send({ email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      user: { id: user.id, email: user.email, name: 'signin' },
      tenants: [
        {
          tenantId: tenant.id,
          slug: tenant.slug,
          name: 'Sign-in tenant',
          role: 'member',
          status: 'active',
          joinedAt: expect.any(String),
        },
      ],
    });
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0];
    expect(cookie).toMatch(/^crm_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(cookie).not.toContain('Secure');
    // Only the token's hash is stored.
    const token = cookie.split(';')[0].split('=')[1];
    const stored = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('sessions')
        .select(['user_id', 'expires_at'])
        .where('token_hash', '=', sha256Hex(token))
        .executeTakeFirst(),
    );
    expect(stored?.user_id).toBe(user.id);
    const none = await withSystemScope(database.db, (trx) =>
      trx.selectFrom('sessions').select('user_id').where('token_hash', '=', token).execute(),
    );
    expect(none).toEqual([]);
  });

  it('marks the cookie Secure when the public base URL is https', async () => {
    const secure = testGateway({ PUBLIC_BASE_URL: 'https://crm.example.com' });
    try {
      const user = await createAccount(database, 'secure');
      const res = await request(secure.app)
        .post('/api/auth/sign-in')
        .send({ email: user.email, password: PASSWORD });
      expect(([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]).toContain('Secure');
    } finally {
      await secure.close();
    }
  });

  describe('Secure from the protocol a trusted proxy forwarded (X-Forwarded-Proto)', () => {
    const setCookies = (res: request.Response) =>
      ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    async function signInOverForwardedHttps(env: Record<string, string>) {
      const gw = testGateway(env);
      try {
        const user = await createAccount(database, 'proxied');
        const res = await request(gw.app)
          .post('/api/auth/sign-in')
          .set('X-Forwarded-Proto', 'https')
          .send({ email: user.email, password: PASSWORD });
        expect(res.status).toBe(200);
        const signOut = await request(gw.app)
          .post('/api/auth/sign-out')
          .set('X-Forwarded-Proto', 'https')
          .set('Cookie', cookieHeader(res.headers['set-cookie']));
        return { signIn: setCookies(res), signOut: setCookies(signOut) };
      } finally {
        await gw.close();
      }
    }
    const session = (cookies: string[]) => cookies.find((c) => c.startsWith('crm_session='));

    it.each([['1'], ['loopback']])('TRUST_PROXY=%s: Secure', async (trust) => {
      const cookies = await signInOverForwardedHttps({ TRUST_PROXY: trust });
      expect(session(cookies.signIn)).toMatch(/; Secure(;|$)/);
      expect(cookies.signOut.length).toBeGreaterThan(0);
      for (const cleared of cookies.signOut) expect(cleared).toMatch(/; Secure(;|$)/);
    });

    it("no trusted proxy: the header is the client's own claim, no Secure", async () => {
      const cookies = await signInOverForwardedHttps({});
      expect(session(cookies.signIn)).toBeDefined();
      expect(session(cookies.signIn)).not.toMatch(/Secure/);
      for (const cleared of cookies.signOut) expect(cleared).not.toMatch(/Secure/);
    });
  });

  it('answers a wrong password and an unknown email with the same 401 and no cookie', async () => {
    const user = await createAccount(database, 'wrong');
    const wrong = await request(app)
      .post('/api/auth/sign-in')
      .send({ email: user.email, password: 'not the password' });
    const unknown = await request(app)
      .post('/api/auth/sign-in')
      .send({ email: uniqueEmail('nobody'), password: 'not the password' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
        message: 'Invalid email or password',
        details: null,
      });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });
});

describe('sessions: sign-out, expiry, me', () => {
  it('sign-out deletes the session server-side and clears both cookies', async () => {
    const user = await createAccount(database, 'signout');
    const cookie = await signIn(app, user.email);
    const token = cookie.split('=')[1];
    const res = await request(app).post('/api/auth/sign-out').set('Cookie', cookie);
    expect(res.status).toBe(200);
    const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cleared).toEqual([
      expect.stringMatching(/^crm_session=; Max-Age=0;/),
      expect.stringMatching(/^crm_tenant=; Max-Age=0;/),
    ]);
    const rows = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('sessions')
        .select('user_id')
        .where('token_hash', '=', sha256Hex(token))
        .execute(),
    );
    expect(rows).toEqual([]);
    // The old cookie no longer works even if the browser kept it.
    const me = await request(app).get('/api/auth/me').set('Cookie', cookie);
    expect(me.status).toBe(401);
  });

  it('an expired session is refused with 401 Unauthorized', async () => {
    const user = await createAccount(database, 'expired');
    const cookie = await signIn(app, user.email);
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('user_id', '=', user.id)
        .execute(),
    );
    const res = await request(app).get('/api/auth/me').set('Cookie', cookie);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'Unauthorized', code: 'UNAUTHORIZED' });
  });

  it('a forged session token is refused', async () => {
    const res = await request(app)
      .get('/api/auth/me')
      .set('Cookie', 'crm_session=forged-token-value');
    expect(res.status).toBe(401);
  });

  it('me lists memberships with tenant id, slug, name, role and status, and the tenant selected now', async () => {
    const user = await createAccount(database, 'me');
    const older = await createTenant(database, 'Older');
    const disabled = await createTenant(database, 'Disabled');
    const newer = await createTenant(database, 'Newer');
    await addMember(database, older.id, user.id, 'admin');
    await addMember(database, disabled.id, user.id, 'member', 'disabled');
    await addMember(database, newer.id, user.id, 'viewer');
    const cookie = await signIn(app, user.email);
    const res = await request(app).get('/api/auth/me').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ id: user.id, email: user.email, name: 'me' });
    expect(
      res.body.data.memberships.map((m: { slug: string; role: string; status: string }) => [
        m.slug,
        m.role,
        m.status,
      ]),
    ).toEqual([
      [newer.slug, 'viewer', 'active'],
      [disabled.slug, 'member', 'disabled'],
      [older.slug, 'admin', 'active'],
    ]);
    expect(res.body.data.selectedTenant).toMatchObject({ tenantId: newer.id });
  });
});

describe('POST /api/auth/active-tenant', () => {
  it('sets the active-tenant cookie for a tenant with an active membership', async () => {
    const user = await createAccount(database, 'switch');
    const first = await createTenant(database, 'First');
    const second = await createTenant(database, 'Second');
    await addMember(database, first.id, user.id, 'member');
    await addMember(database, second.id, user.id, 'member');
    const cookie = await signIn(app, user.email);
    const res = await request(app)
      .post('/api/auth/active-tenant')
      .set('Cookie', cookie)
      .send({ tenantId: first.id });
    expect(res.status).toBe(200);
    const tenantCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0];
    expect(tenantCookie).toMatch(new RegExp(`^crm_tenant=${first.id};.*HttpOnly`));
    const me = await request(app)
      .get('/api/auth/me')
      .set('Cookie', `${cookie}; crm_tenant=${first.id}`);
    expect(me.body.data.selectedTenant.tenantId).toBe(first.id);
  });

  it('answers 403 TENANT_ACCESS_DENIED for a tenant without an active membership, and sets nothing', async () => {
    const user = await createAccount(database, 'noswitch');
    const mine = await createTenant(database, 'Mine');
    const disabledThere = await createTenant(database, 'Disabled there');
    const foreign = await createTenant(database, 'Foreign');
    await addMember(database, mine.id, user.id, 'member');
    await addMember(database, disabledThere.id, user.id, 'member', 'disabled');
    const cookie = await signIn(app, user.email);
    for (const tenantId of [foreign.id, disabledThere.id]) {
      const res = await request(app)
        .post('/api/auth/active-tenant')
        .set('Cookie', cookie)
        .send({ tenantId });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'TENANT_ACCESS_DENIED' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('answers 401 without a session and 400 for a tenant id that is not a uuid', async () => {
    expect(
      (
        await request(app)
          .post('/api/auth/active-tenant')
          .send({ tenantId: '00000000-0000-0000-0000-000000000000' })
      ).status,
    ).toBe(401);
    const user = await createAccount(database, 'baduuid');
    const cookie = await signIn(app, user.email);
    const res = await request(app)
      .post('/api/auth/active-tenant')
      .set('Cookie', cookie)
      .send({ tenantId: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});
