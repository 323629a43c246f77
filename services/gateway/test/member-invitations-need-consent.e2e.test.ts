import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import type { Role } from '@crm/shared/identity';
import {
  acceptInvitationTo,
  addMember,
  cookieHeader,
  createAccount,
  createTenant,
  PASSWORD,
  sessionClient,
  signIn,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import request from 'supertest';
import { service as crmApi } from '../../crm-api/src/main';

/**
 * Adding a member must not pull a user into a tenant without their
 * consent, and must not tell the caller whether an email has an account. Before invitations,
 * `POST /api/auth/members` made an active membership at once, and since a request without
 * header or cookie acts in the most recently joined active membership
 * (specified), the victim's next import landed in the stranger's tenant.
 * Real gateway, real crm-api, real Postgres; rows are read back from the database.
 */
const database = testDb();
const stack = useServiceBehindGateway(crmApi);
afterAll(() => database.close());

interface Person {
  id: string;
  email: string;
  tenantId: string;
  cookie: string;
}

/** A user who holds `role` in a tenant of their own, signed in through the gateway. */
async function personWithOwnTenant(name: string, role: Role = 'owner'): Promise<Person> {
  const tenant = await createTenant(database, `${name}'s tenant`);
  const user = await createAccount(database, name);
  await addMember(database, tenant.id, user.id, role);
  return { ...user, tenantId: tenant.id, cookie: await signIn(stack.gateway.app, user.email) };
}

function client(person: { cookie: string }) {
  return sessionClient(stack.url, person.cookie);
}

function leadRows(email: string) {
  return withSystemScope(database.db, (trx) =>
    trx.selectFrom('crm_leads').select(['tenant_id', 'email']).where('email', '=', email).execute(),
  );
}

/** Imports one new lead as `person` (with optional extra headers); returns the tenant it landed in. */
async function importLeadLandsIn(
  person: Person,
  headers: Record<string, string> = {},
): Promise<string> {
  const email = `lead-${randomUUID()}@example.test`;
  const res = await request(stack.url)
    .post('/api/v1/import/leads')
    .set({ Cookie: person.cookie, ...headers })
    .send({ leads: [{ email }] });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ success: true, imported: 1, failed: 0 });
  const rows = await leadRows(email);
  expect(rows).toHaveLength(1);
  return rows[0].tenant_id;
}

function membershipsOf(userId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('tenant_users')
      .select(['tenant_id', 'role', 'status', 'joined_at'])
      .where('user_id', '=', userId)
      .orderBy('joined_at')
      .execute(),
  );
}

function invitationRows(tenantId: string) {
  return withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('tenant_invitations')
      .select(['id', 'email', 'role', 'accepted_at', 'accepted_by'])
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .execute(),
  );
}

async function invite(inviter: Person, email: string, role: Role = 'member') {
  const res = await client(inviter).post('/api/auth/members', { email, role });
  expect(res.status).toBe(201);
  return res.body.data.invitation as { invitationId: string; email: string; role: Role };
}

const NO_SUCH_INVITATION = {
  success: false,
  error: 'Not found',
  code: 'NOT_FOUND',
  message: 'No such invitation',
  details: null,
};

describe('a stranger adding a user as a member (the reproduction)', () => {
  it("leaves the victim's imports in the victim's tenant; once the victim accepts, the specified selection order applies", async () => {
    const victim = await personWithOwnTenant('victim');
    const stranger = await personWithOwnTenant('stranger');

    const added = await client(stranger).post('/api/auth/members', {
      email: victim.email,
      role: 'member',
    });
    expect(added.status).toBe(201);
    expect(added.body.data.invitation.status).toBe('invited');

    // The victim, with neither x-tenant-id nor the active-tenant cookie, imports a lead.
    const secret = `secret-${randomUUID()}@example.test`;
    const imported = await client(victim).post('/api/v1/import/leads', {
      leads: [{ email: secret }],
    });
    expect(imported.status).toBe(200);
    expect(await leadRows(secret)).toEqual([{ tenant_id: victim.tenantId, email: secret }]);
    const strangerLeads = await client(stranger).get('/api/crm/leads?pageSize=100');
    expect(strangerLeads.status).toBe(200);
    expect(JSON.stringify(strangerLeads.body)).not.toContain(secret);
    expect((await membershipsOf(victim.id)).map((m) => m.tenant_id)).toEqual([victim.tenantId]);

    // The victim decides to join.
    const beforeAccept = new Date();
    const accepted = await acceptInvitationTo(stack.url, victim.cookie, stranger.tenantId);
    expect(accepted).toMatchObject({
      tenantId: stranger.tenantId,
      role: 'member',
      status: 'active',
    });
    const joined = (await membershipsOf(victim.id)).find((m) => m.tenant_id === stranger.tenantId);
    expect(joined).toMatchObject({ role: 'member', status: 'active' });
    expect(joined!.joined_at.getTime()).toBeGreaterThanOrEqual(beforeAccept.getTime() - 1000);

    // Most recently joined active membership: the accepted one, now by the victim's choice...
    expect(await importLeadLandsIn(victim)).toBe(stranger.tenantId);
    // ...while the header and the active-tenant cookie still win, in that order.
    expect(await importLeadLandsIn(victim, { 'x-tenant-id': victim.tenantId })).toBe(
      victim.tenantId,
    );
    expect(
      await importLeadLandsIn(victim, {
        Cookie: `${victim.cookie}; crm_tenant=${victim.tenantId}`,
      }),
    ).toBe(victim.tenantId);
    expect(
      await importLeadLandsIn(victim, {
        Cookie: `${victim.cookie}; crm_tenant=${victim.tenantId}`,
        'x-tenant-id': stranger.tenantId,
      }),
    ).toBe(stranger.tenantId);
  });
});

describe('no account-existence oracle', () => {
  it('an email with an account and one without get the same status and body, and the same list entry', async () => {
    const admin = await personWithOwnTenant('admin', 'admin');
    const existing = await createAccount(database, 'existing');
    const unknown = `nobody-${randomUUID()}@example.test`;

    const withAccount = await client(admin).post('/api/auth/members', {
      email: existing.email.toUpperCase(),
      role: 'member',
    });
    const withoutAccount = await client(admin).post('/api/auth/members', {
      email: unknown.toUpperCase(),
      role: 'member',
    });

    const expected = (email: string) => ({
      success: true,
      message: 'Member invited',
      data: {
        invitation: {
          invitationId: expect.any(String),
          email,
          role: 'member',
          status: 'invited',
          invitedAt: expect.any(String),
        },
      },
    });
    expect(withAccount.status).toBe(201);
    expect(withoutAccount.status).toBe(201);
    expect(withAccount.body).toEqual(expected(existing.email));
    expect(withoutAccount.body).toEqual(expected(unknown));
    const blank = (body: { data: { invitation: object } }) =>
      JSON.stringify({
        ...body,
        data: {
          invitation: { ...body.data.invitation, invitationId: 'x', email: 'x', invitedAt: 'x' },
        },
      });
    expect(blank(withAccount.body)).toBe(blank(withoutAccount.body));
    expect(JSON.stringify(withAccount.body)).not.toContain(existing.id);

    // Nobody joined; both are pending invitations, listed alike (no user id, no name).
    expect(await membershipsOf(existing.id)).toEqual([]);
    expect((await invitationRows(admin.tenantId)).map((r) => r.email)).toEqual([
      existing.email,
      unknown,
    ]);
    const list = await client(admin).get('/api/auth/members');
    expect(list.status).toBe(200);
    const pending = (list.body.data.members as Array<{ status: string }>).filter(
      (m) => m.status === 'invited',
    );
    expect(pending).toEqual([
      withAccount.body.data.invitation,
      withoutAccount.body.data.invitation,
    ]);
    expect(JSON.stringify(list.body)).not.toContain(existing.id);
  });

  it('an invitation to an email without an account shows up once it signs up, and can be accepted', async () => {
    const owner = await personWithOwnTenant('owner');
    const email = `later-${randomUUID()}@example.test`;
    await invite(owner, email, 'viewer');

    const signUp = await request(stack.url)
      .post('/api/auth/sign-up')
      .send({ email, password: PASSWORD, tenantName: 'Latecomer' });
    expect(signUp.status).toBe(201);
    const cookie = cookieHeader(signUp.headers['set-cookie']);
    const me = await request(stack.url).get('/api/auth/me').set('Cookie', cookie);
    expect(me.body.data.invitations).toEqual([
      {
        invitationId: expect.any(String),
        tenantId: owner.tenantId,
        slug: expect.any(String),
        name: "owner's tenant",
        role: 'viewer',
        status: 'invited',
        invitedAt: expect.any(String),
      },
    ]);
    const accepted = await acceptInvitationTo(stack.url, cookie, owner.tenantId);
    expect(accepted).toMatchObject({ tenantId: owner.tenantId, role: 'viewer', status: 'active' });
  });

  it('inviting an email that already has a pending invitation -> 409 ALREADY_EXISTS, whether or not it has an account', async () => {
    const owner = await personWithOwnTenant('owner');
    const existing = await createAccount(database, 'twice');
    const unknown = `twice-${randomUUID()}@example.test`;
    for (const email of [existing.email, unknown]) {
      await invite(owner, email);
      const again = await client(owner).post('/api/auth/members', { email, role: 'admin' });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        success: false,
        error: 'Already exists',
        code: 'ALREADY_EXISTS',
        message: 'An invitation to this email is already pending',
        details: null,
      });
    }
    expect((await invitationRows(owner.tenantId)).map((r) => r.role)).toEqual(['member', 'member']);
  });
});

describe('answering an invitation', () => {
  it('GET /api/auth/me and GET /api/auth/invitations list pending invitations, never as memberships', async () => {
    const invitee = await personWithOwnTenant('invitee');
    const first = await personWithOwnTenant('first');
    const second = await personWithOwnTenant('second');
    const a = await invite(first, invitee.email, 'admin');
    const b = await invite(second, invitee.email, 'viewer');

    const me = await client(invitee).get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.data.memberships.map((m: { tenantId: string }) => m.tenantId)).toEqual([
      invitee.tenantId,
    ]);
    expect(me.body.data.selectedTenant.tenantId).toBe(invitee.tenantId);
    const view = (id: string, tenantId: string, role: Role, name: string) => ({
      invitationId: id,
      tenantId,
      slug: expect.any(String),
      name,
      role,
      status: 'invited',
      invitedAt: expect.any(String),
    });
    // Newest first.
    const expected = [
      view(b.invitationId, second.tenantId, 'viewer', "second's tenant"),
      view(a.invitationId, first.tenantId, 'admin', "first's tenant"),
    ];
    expect(me.body.data.invitations).toEqual(expected);
    const list = await client(invitee).get('/api/auth/invitations');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ success: true, message: 'OK', data: { invitations: expected } });
  });

  it('only the invitee may accept or decline: anyone else gets the 404 of an unknown id and nothing changes', async () => {
    const owner = await personWithOwnTenant('owner');
    const invitee = await personWithOwnTenant('invitee');
    const other = await personWithOwnTenant('other');
    const { invitationId } = await invite(owner, invitee.email);
    const before = await invitationRows(owner.tenantId);

    for (const someoneElse of [other, owner]) {
      for (const answer of ['accept', 'decline']) {
        const res = await client(someoneElse).post(
          `/api/auth/invitations/${invitationId}/${answer}`,
          {},
        );
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NO_SUCH_INVITATION);
      }
    }
    const unknown = await client(other).post(`/api/auth/invitations/${randomUUID()}/accept`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(NO_SUCH_INVITATION);

    expect(await invitationRows(owner.tenantId)).toEqual(before);
    expect((await membershipsOf(other.id)).map((m) => m.tenant_id)).toEqual([other.tenantId]);
    expect((await membershipsOf(owner.id)).map((m) => m.tenant_id)).toEqual([owner.tenantId]);
    expect((await membershipsOf(invitee.id)).map((m) => m.tenant_id)).toEqual([invitee.tenantId]);
  });

  it('accept: 200 with the active membership; a second answer -> 409 CONFLICT', async () => {
    const owner = await personWithOwnTenant('owner');
    const invitee = await personWithOwnTenant('invitee');
    const { invitationId } = await invite(owner, invitee.email, 'admin');

    const res = await client(invitee).post(`/api/auth/invitations/${invitationId}/accept`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Invitation accepted',
      data: {
        membership: {
          tenantId: owner.tenantId,
          slug: expect.any(String),
          name: "owner's tenant",
          role: 'admin',
          status: 'active',
          joinedAt: expect.any(String),
        },
      },
    });
    expect(await invitationRows(owner.tenantId)).toEqual([
      {
        id: invitationId,
        email: invitee.email,
        role: 'admin',
        accepted_at: expect.any(Date),
        accepted_by: invitee.id,
      },
    ]);

    for (const answer of ['accept', 'decline']) {
      const again = await client(invitee).post(
        `/api/auth/invitations/${invitationId}/${answer}`,
        {},
      );
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        success: false,
        error: 'Conflict',
        code: 'CONFLICT',
        message: 'You have already accepted this invitation',
        details: null,
      });
    }
    expect((await client(invitee).get('/api/auth/invitations')).body.data.invitations).toEqual([]);
    const members = await client(owner).get('/api/auth/members');
    expect(members.body.data.members).toContainEqual({
      userId: invitee.id,
      email: invitee.email,
      name: 'invitee',
      role: 'admin',
      status: 'active',
      joinedAt: expect.any(String),
    });
    expect(
      (members.body.data.members as Array<{ status: string }>).filter(
        (m) => m.status === 'invited',
      ),
    ).toEqual([]);
  });

  it('decline: 200, the invitation is gone for both sides; answering again -> 404', async () => {
    const owner = await personWithOwnTenant('owner');
    const invitee = await personWithOwnTenant('invitee');
    const { invitationId } = await invite(owner, invitee.email);

    const res = await client(invitee).post(`/api/auth/invitations/${invitationId}/decline`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Invitation declined',
      data: { invitation: { invitationId, status: 'declined' } },
    });
    expect(await invitationRows(owner.tenantId)).toEqual([]);
    expect((await membershipsOf(invitee.id)).map((m) => m.tenant_id)).toEqual([invitee.tenantId]);
    const members = await client(owner).get('/api/auth/members');
    expect(members.body.data.members.map((m: { email: string }) => m.email)).toEqual([owner.email]);
    for (const answer of ['accept', 'decline']) {
      const again = await client(invitee).post(
        `/api/auth/invitations/${invitationId}/${answer}`,
        {},
      );
      expect(again.status).toBe(404);
      expect(again.body).toEqual(NO_SUCH_INVITATION);
    }
    // The tenant may invite again; it is the invitee's call each time.
    await invite(owner, invitee.email);
  });

  it('a user with no active membership at all can still see and accept an invitation', async () => {
    const owner = await personWithOwnTenant('owner');
    const lonely = await personWithOwnTenant('lonely');
    await withSystemScope(database.db, (trx) =>
      trx
        .updateTable('tenant_users')
        .set({ status: 'disabled' })
        .where('user_id', '=', lonely.id)
        .execute(),
    );
    await invite(owner, lonely.email);

    const before = await client(lonely).get('/api/crm/deals');
    expect(before.status).toBe(403);
    expect(before.body.error).toBe('No active tenant membership');
    await acceptInvitationTo(stack.url, lonely.cookie, owner.tenantId);
    const after = await client(lonely).get('/api/crm/deals');
    expect(after.status).toBe(200);
  });

  it('without a session -> 401; an id that is not a uuid -> 400 VALIDATION_ERROR', async () => {
    for (const res of [
      await request(stack.url).get('/api/auth/invitations'),
      await request(stack.url).post(`/api/auth/invitations/${randomUUID()}/accept`),
      await request(stack.url).post(`/api/auth/invitations/${randomUUID()}/decline`),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: 'Unauthorized' });
    }
    const someone = await personWithOwnTenant('someone');
    const res = await client(someone).post('/api/auth/invitations/not-a-uuid/accept', {});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Invalid invitation id: must be an invitation id (uuid)',
    });
  });
});

describe('a pending invitation is never an active membership', () => {
  const DENIED_HEADER = {
    success: false,
    error: 'Tenant access denied',
    code: 'TENANT_ACCESS_DENIED',
    message: 'You are not an active member of the tenant named by the x-tenant-id header',
    details: null,
  };
  const DENIED_COOKIE = {
    ...DENIED_HEADER,
    message: 'You are not an active member of the tenant named by the active-tenant cookie',
  };

  it.each([
    ['an invitation (tenant_invitations)', 'invitation'],
    ["an 'invited' tenant_users row", 'row'],
  ])(
    '%s: x-tenant-id, the active-tenant cookie and POST /api/auth/active-tenant get the 403 of a foreign tenant',
    async (_name, kind) => {
      const owner = await personWithOwnTenant('owner');
      const invitee = await personWithOwnTenant('invitee');
      if (kind === 'invitation') await invite(owner, invitee.email, 'owner');
      else await addMember(database, owner.tenantId, invitee.id, 'owner', 'invited');

      const viaHeader = await client(invitee)
        .get('/api/auth/members')
        .set('x-tenant-id', owner.tenantId);
      expect(viaHeader.status).toBe(403);
      expect(viaHeader.body).toEqual(DENIED_HEADER);
      const viaHeaderWrite = await request(stack.url)
        .post('/api/v1/import/leads')
        .set({ Cookie: invitee.cookie, 'x-tenant-id': owner.tenantId })
        .send({ leads: [{ email: `x-${randomUUID()}@example.test` }] });
      expect(viaHeaderWrite.status).toBe(403);
      expect(viaHeaderWrite.body).toEqual(DENIED_HEADER);
      const viaCookie = await request(stack.url)
        .get('/api/crm/deals')
        .set('Cookie', `${invitee.cookie}; crm_tenant=${owner.tenantId}`);
      expect(viaCookie.status).toBe(403);
      expect(viaCookie.body).toEqual(DENIED_COOKIE);
      const activeTenant = await client(invitee).post('/api/auth/active-tenant', {
        tenantId: owner.tenantId,
      });
      expect(activeTenant.status).toBe(403);
      expect(activeTenant.body).toMatchObject({ code: 'TENANT_ACCESS_DENIED' });
      expect(activeTenant.headers['set-cookie']).toBeUndefined();
      // Without header or cookie: their own tenant, though the invitation is newer.
      expect(await importLeadLandsIn(invitee)).toBe(invitee.tenantId);
      const me = await client(invitee).get('/api/auth/me');
      expect(me.body.data.selectedTenant.tenantId).toBe(invitee.tenantId);
    },
  );

  it('a pending owner invitation does not count as an active owner', async () => {
    const owner = await personWithOwnTenant('owner');
    const invitee = await createAccount(database, 'future-owner');
    await invite(owner, invitee.email, 'owner');
    await addMember(
      database,
      owner.tenantId,
      (await createAccount(database, 'x')).id,
      'owner',
      'invited',
    );

    const res = await client(owner).patch(`/api/auth/members/${owner.id}`, { role: 'admin' });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('A tenant must keep at least one active owner');
  });
});

describe('managers and pending invitations', () => {
  it('PATCH cannot set invited (400) nor move an invited membership out of it (409); an invitee who has not accepted is no member (404)', async () => {
    const owner = await personWithOwnTenant('owner');
    const member = await createAccount(database, 'member');
    const legacy = await createAccount(database, 'legacy-invited');
    const invitee = await createAccount(database, 'invitee');
    await addMember(database, owner.tenantId, member.id, 'member');
    await addMember(database, owner.tenantId, legacy.id, 'member', 'invited');
    await invite(owner, invitee.email);
    const before = await membershipsOf(member.id);

    const toInvited = await client(owner).patch(`/api/auth/members/${member.id}`, {
      status: 'invited',
    });
    expect(toInvited.status).toBe(400);
    expect(toInvited.body).toEqual({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message:
        'Invalid member change: status: must be one of: active, disabled (an invitation is accepted by the invited user only)',
      details: { issues: [{ path: 'status', code: 'invalid_value', message: expect.any(String) }] },
    });
    expect(await membershipsOf(member.id)).toEqual(before);

    for (const change of [{ status: 'active' }, { status: 'disabled' }, { role: 'admin' }]) {
      const res = await client(owner).patch(`/api/auth/members/${legacy.id}`, change);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: 'Conflict',
        code: 'CONFLICT',
        message: 'This user has not accepted the invitation; only they can',
        details: null,
      });
    }
    expect(await membershipsOf(legacy.id)).toEqual([
      expect.objectContaining({ role: 'member', status: 'invited' }),
    ]);

    const pending = await client(owner).patch(`/api/auth/members/${invitee.id}`, {
      status: 'active',
    });
    expect(pending.status).toBe(404);
    expect(await membershipsOf(invitee.id)).toEqual([]);
  });

  it('DELETE /api/auth/members/invitations/:id revokes a pending invitation; the invitee can no longer accept it', async () => {
    const owner = await personWithOwnTenant('owner');
    const invitee = await personWithOwnTenant('invitee');
    const invitation = await invite(owner, invitee.email, 'admin');

    const res = await client(owner).delete(
      `/api/auth/members/invitations/${invitation.invitationId}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Invitation revoked',
      data: { invitation: { ...invitation, status: 'revoked' } },
    });
    expect(await invitationRows(owner.tenantId)).toEqual([]);
    expect((await client(invitee).get('/api/auth/invitations')).body.data.invitations).toEqual([]);
    const accept = await client(invitee).post(
      `/api/auth/invitations/${invitation.invitationId}/accept`,
      {},
    );
    expect(accept.status).toBe(404);
    const again = await client(owner).delete(
      `/api/auth/members/invitations/${invitation.invitationId}`,
    );
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('No pending invitation with this id in this tenant');
  });

  it('revoking: an admin may not revoke an owner invitation; another tenant cannot touch it; an accepted one is no longer pending', async () => {
    const owner = await personWithOwnTenant('owner');
    const admin = await createAccount(database, 'admin');
    await addMember(database, owner.tenantId, admin.id, 'admin');
    const adminCookie = { cookie: await signIn(stack.gateway.app, admin.email) };
    const outsider = await personWithOwnTenant('outsider');
    const ownerInvite = await invite(owner, `boss-${randomUUID()}@example.test`, 'owner');
    const invitee = await personWithOwnTenant('invitee');
    const accepted = await invite(owner, invitee.email, 'member');
    await acceptInvitationTo(stack.url, invitee.cookie, owner.tenantId);

    const byAdmin = await client(adminCookie).delete(
      `/api/auth/members/invitations/${ownerInvite.invitationId}`,
    );
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.message).toBe('Only an owner may revoke an owner invitation');
    const byOutsider = await client(outsider).delete(
      `/api/auth/members/invitations/${ownerInvite.invitationId}`,
    );
    expect(byOutsider.status).toBe(404);
    const byOutsiderNamed = await client(outsider)
      .delete(`/api/auth/members/invitations/${ownerInvite.invitationId}`)
      .set('x-tenant-id', owner.tenantId);
    expect(byOutsiderNamed.status).toBe(403);
    const acceptedOne = await client(owner).delete(
      `/api/auth/members/invitations/${accepted.invitationId}`,
    );
    expect(acceptedOne.status).toBe(404);
    expect((await invitationRows(owner.tenantId)).map((r) => r.id).sort()).toEqual(
      [ownerInvite.invitationId, accepted.invitationId].sort(),
    );
  });
});
