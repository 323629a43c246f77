import { withSystemScope } from '@crm/shared/db';
import { createAccount, PASSWORD, testDb, testGateway } from '@crm/test-kit';
import request from 'supertest';

/**
 * Sign-in and sign-up take no session, so anyone could make them answer 500
 * with a U+0000 or an unpaired surrogate in a JSON string or key (Postgres refuses both). The
 * shared JSON parser now answers 400 VALIDATION_ERROR naming the field, before any query.
 */
const database = testDb();
const gateway = testGateway();
const { app } = gateway;

afterAll(async () => {
  await gateway.close();
  await database.close();
});

function expectRefused(res: request.Response, path: string, code: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status: 400,
    body: {
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      details: { issues: [{ path, code, message: expect.any(String) }] },
    },
  });
}

const sessionsOf = (userId: string) =>
  withSystemScope(
    database.db,
    async (trx) =>
      (await trx.selectFrom('sessions').select('user_id').where('user_id', '=', userId).execute())
        .length,
  );

const usersNamed = (email: string) =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('users').select('id').where('email', 'ilike', `${email}%`).execute(),
  );

const tenantsNamed = (name: string) =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('tenants').select('id').where('name', 'like', `${name}%`).execute(),
  );

describe('POST /api/auth/sign-in', () => {
  it.each([
    ['NUL in the email', (email: string) => ({ email: `${email}\u0000` }), 'email'],
    ['a lone surrogate in the email', (email: string) => ({ email: `\ud800${email}` }), 'email'],
    ['NUL in the password', (_email: string) => ({ password: `${PASSWORD}\u0000` }), 'password'],
  ])('with %s -> 400 naming the field, no session', async (_case, change, field) => {
    const user = await createAccount(database, 'hostile');
    const res = await request(app)
      .post('/api/auth/sign-in')
      .send({ email: user.email, password: PASSWORD, ...change(user.email) });
    expectRefused(res, field, 'invalid_format');
    expect(await sessionsOf(user.id)).toBe(0);
  });

  it('with NUL in a key -> 400 naming the key', async () => {
    const res = await request(app)
      .post('/api/auth/sign-in')
      .send({ email: 'a@example.test', password: PASSWORD, ['x\u0000']: 1 });
    expectRefused(res, 'x\\u0000', 'invalid_key');
  });
});

describe('POST /api/auth/sign-up', () => {
  const unique = () => `hostile-${Math.random().toString(36).slice(2, 10)}`;

  it.each([
    ['NUL in the email', (id: string) => ({ email: `${id}\u0000@example.test` }), 'email'],
    ['NUL in the name', (_id: string) => ({ name: 'Ada\u0000' }), 'name'],
    ['a lone surrogate in the name', (_id: string) => ({ name: 'Ada \udfff' }), 'name'],
    ['NUL in the tenant name', (id: string) => ({ tenantName: `${id}\u0000` }), 'tenantName'],
  ])('with %s -> 400 naming the field, no user and no tenant', async (_case, change, field) => {
    const id = unique();
    const body = {
      email: `${id}@example.test`,
      password: 'long enough password',
      tenantName: id,
      ...change(id),
    };
    const res = await request(app).post('/api/auth/sign-up').send(body);
    expectRefused(res, field, 'invalid_format');
    expect(await usersNamed(id)).toEqual([]);
    expect(await tenantsNamed(id)).toEqual([]);
  });

  it('nested 5,000 levels deep -> 400, no user', async () => {
    const id = unique();
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const res = await request(app)
      .post('/api/auth/sign-up')
      .set('content-type', 'application/json')
      .send(
        `{"email":"${id}@example.test","password":"long enough password","tenantName":"${id}","x":${deep}}`,
      );
    expectRefused(res, `x${'.0'.repeat(63)}`, 'too_big');
    expect(await usersNamed(id)).toEqual([]);
  });
});
