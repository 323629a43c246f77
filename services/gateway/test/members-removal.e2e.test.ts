import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import type { Role } from '@crm/shared/identity';
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
 * DELETE /api/auth/members/:userId removes a membership of the selected tenant (owners and
 * admins; only an owner removes an owner; never the last active owner), against the real
 * database: rows asserted in tenant_users, and the removed user's access checked through the
 * gateway.
 */
const db = testDb();
let echo: EchoService;
let gw: TestGateway;
beforeAll(async () => {
  echo = await startEchoService();
  gw = testGateway(upstreamsAt(echo.url));
});
afterAll(async () => {
  await gw.close();
  await echo.close();
  await db.close();
});

async function tenantWith(...roles: Array<[Role, string?]>) {
  const tenant = await createTenant(db, 'Removal test');
  const users = [];
  for (const [role, status] of roles) {
    const user = await createAccount(db, role);
    await addMember(db, tenant.id, user.id, role, status as never);
    users.push({ ...user, cookie: await signIn(gw.app, user.email) });
  }
  return { tenantId: tenant.id, users };
}

function rowsOf(tenantId: string) {
  return withSystemScope(db.db, (trx) =>
    trx
      .selectFrom('tenant_users')
      .select(['user_id', 'role', 'status'])
      .where('tenant_id', '=', tenantId)
      .orderBy('user_id')
      .execute(),
  );
}

const remove = (cookie: string, userId: string) =>
  request(gw.app).delete(`/api/auth/members/${userId}`).set('Cookie', cookie);

describe('DELETE /api/auth/members/:userId', () => {
  it('an owner removes a member: the row goes, and the user loses access at once', async () => {
    const { tenantId, users } = await tenantWith(['owner'], ['member']);
    const [owner, leaver] = users;
    expect((await request(gw.app).get('/api/crm/deals').set('Cookie', leaver.cookie)).status).toBe(
      200,
    );

    const res = await remove(owner.cookie, leaver.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Member removed',
      data: {
        member: { userId: leaver.id, email: leaver.email, role: 'member', status: 'removed' },
      },
    });
    expect((await rowsOf(tenantId)).map((r) => r.user_id)).toEqual([owner.id]);

    const probe = `/api/crm/deals?probe=${randomUUID()}`;
    const after = await request(gw.app).get(probe).set('Cookie', leaver.cookie);
    expect(after.status).toBe(403);
    expect(after.body.code).toBe('TENANT_ACCESS_DENIED');
    expect(echo.received.filter((r) => r.url === probe)).toEqual([]);

    // They can be invited again.
    const again = await request(gw.app)
      .post('/api/auth/members')
      .set('Cookie', owner.cookie)
      .send({ email: leaver.email, role: 'viewer' });
    expect(again.status).toBe(201);
  });

  it('an admin removes a member but not an owner (403), which changes nothing', async () => {
    const { tenantId, users } = await tenantWith(['owner'], ['admin'], ['viewer']);
    const [owner, admin, viewer] = users;
    const refused = await remove(admin.cookie, owner.id);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'FORBIDDEN',
      message: 'Only an owner may remove an owner',
    });
    expect(await rowsOf(tenantId)).toHaveLength(3);
    expect((await remove(admin.cookie, viewer.id)).status).toBe(200);
    expect((await rowsOf(tenantId)).map((r) => r.user_id).sort()).toEqual(
      [owner.id, admin.id].sort(),
    );
  });

  it('the last active owner cannot be removed (409); with another active owner they can leave', async () => {
    const { tenantId, users } = await tenantWith(['owner'], ['owner', 'disabled']);
    const [owner, disabledOwner] = users;
    const before = await rowsOf(tenantId);
    const res = await remove(owner.cookie, owner.id);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'CONFLICT',
      message: 'A tenant must keep at least one active owner',
    });
    expect(await rowsOf(tenantId)).toEqual(before);
    // A disabled owner does not count; removing them is fine.
    expect((await remove(owner.cookie, disabledOwner.id)).status).toBe(200);

    const second = await createAccount(db, 'owner');
    await addMember(db, tenantId, second.id, 'owner');
    expect((await remove(owner.cookie, owner.id)).status).toBe(200);
    expect((await rowsOf(tenantId)).map((r) => r.user_id)).toEqual([second.id]);
  });

  it.each<[Role, string]>([
    ['member', 'This action needs one of the roles: owner, admin'],
    ['viewer', 'Viewers may only read'],
  ])('a %s may not remove anyone (403)', async (role, message) => {
    const { tenantId, users } = await tenantWith(['owner'], [role], ['member']);
    const before = await rowsOf(tenantId);
    const res = await remove(users[1].cookie, users[2].id);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FORBIDDEN', message });
    expect(await rowsOf(tenantId)).toEqual(before);
  });

  it("another tenant's member is a 404, and stays in their tenant", async () => {
    const mine = await tenantWith(['owner']);
    const theirs = await tenantWith(['owner'], ['member']);
    const before = await rowsOf(theirs.tenantId);
    const res = await remove(mine.users[0].cookie, theirs.users[1].id);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'No such member in this tenant' });
    expect(await rowsOf(theirs.tenantId)).toEqual(before);
  });

  it('a user id that is not a uuid -> 400 VALIDATION_ERROR', async () => {
    const { users } = await tenantWith(['owner']);
    const res = await remove(users[0].cookie, 'not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});
