import { randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  acceptInvitationTo,
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
import { sql } from 'kysely';
import type { Role } from '@crm/shared/identity';
import request from 'supertest';

/**
 * Membership management of the selected tenant at /api/auth/members, for
 * its owners and admins, against the real database (rows asserted in tenant_users).
 */
describe('gateway /api/auth/members (membership management)', () => {
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

  interface Account {
    id: string;
    email: string;
    name: string;
  }

  async function account(name: string): Promise<Account> {
    const created = await createAccount(db, name);
    return { ...created, name };
  }

  /** A fresh tenant whose first member is an active owner. */
  async function tenantWithOwner(): Promise<{ tenantId: string; owner: Account }> {
    const tenant = await createTenant(db, 'Members test');
    const owner = await account('owner');
    await addMember(db, tenant.id, owner.id, 'owner');
    return { tenantId: tenant.id, owner };
  }

  async function rowsOf(tenantId: string) {
    const rows = await withSystemScope(db.db, (trx) =>
      trx
        .selectFrom('tenant_users')
        .select(['user_id', 'role', 'status'])
        .where('tenant_id', '=', tenantId)
        .execute(),
    );
    return rows.sort((a, b) => a.user_id.localeCompare(b.user_id));
  }

  function row(user: { id: string }, role: Role, status = 'active') {
    return { user_id: user.id, role, status };
  }

  function invitation(email: string, role: Role) {
    return {
      invitationId: expect.any(String),
      email,
      role,
      status: 'invited',
      invitedAt: expect.any(String),
    };
  }

  function forbidden(message: string) {
    return { success: false, error: 'Forbidden', code: 'FORBIDDEN', message, details: null };
  }

  const ROLE_REQUIRED = forbidden('This action needs one of the roles: owner, admin');

  function member(user: Account, role: Role, status = 'active') {
    return {
      userId: user.id,
      email: user.email,
      name: user.name,
      role,
      status,
      joinedAt: expect.any(String),
    };
  }

  describe('GET (list)', () => {
    it('lists the members of the selected tenant only, with email, name, role and status', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const admin = await account('admin');
      const viewer = await account('viewer');
      const disabled = await account('disabled');
      await addMember(db, tenantId, admin.id, 'admin');
      await addMember(db, tenantId, viewer.id, 'viewer');
      await addMember(db, tenantId, disabled.id, 'member', 'disabled');
      // The owner also belongs to another tenant (joined later, so it is their default one).
      const other = await createTenant(db, 'Other tenant');
      const stranger = await account('stranger');
      await addMember(db, other.id, stranger.id, 'owner');
      await addMember(db, other.id, owner.id, 'member');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .get('/api/auth/members')
        .set('Cookie', cookie)
        .set('x-tenant-id', tenantId);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: 'OK',
        data: { members: expect.any(Array) },
      });
      const byId = (a: { userId: string }, b: { userId: string }) =>
        a.userId.localeCompare(b.userId);
      expect([...res.body.data.members].sort(byId)).toEqual(
        [
          member(owner, 'owner'),
          member(admin, 'admin'),
          member(viewer, 'viewer'),
          member(disabled, 'member', 'disabled'),
        ].sort(byId),
      );
    });

    it('without x-tenant-id lists the tenant the selection order picks (the latest joined)', async () => {
      const first = await tenantWithOwner();
      const second = await tenantWithOwner();
      await addMember(db, second.tenantId, first.owner.id, 'admin');

      const cookie = await signIn(gw.app, first.owner.email);
      const res = await request(gw.app).get('/api/auth/members').set('Cookie', cookie);

      expect(res.status).toBe(200);
      const ids = (res.body.data.members as Array<{ userId: string }>).map((m) => m.userId);
      expect(ids.sort()).toEqual([first.owner.id, second.owner.id].sort());
    });

    it('without a session -> 401 Unauthorized', async () => {
      const res = await request(gw.app).get('/api/auth/members');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        success: false,
        error: 'Unauthorized',
        code: 'UNAUTHORIZED',
      });
    });
  });

  describe('POST (invite a user by email)', () => {
    it('invites with the given role: 201, no tenant_users row until the user accepts, then an active one', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const newcomer = await account('newcomer');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: newcomer.email, role: 'admin' });

      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        message: 'Member invited',
        data: { invitation: invitation(newcomer.email, 'admin') },
      });
      expect(await rowsOf(tenantId)).toEqual([row(owner, 'owner')]);

      await acceptInvitationTo(gw.app, await signIn(gw.app, newcomer.email), tenantId);
      expect(await rowsOf(tenantId)).toEqual(
        [row(owner, 'owner'), row(newcomer, 'admin')].sort((a, b) =>
          a.user_id.localeCompare(b.user_id),
        ),
      );
      const listed = await request(gw.app).get('/api/auth/members').set('Cookie', cookie);
      expect(listed.body.data.members).toContainEqual(member(newcomer, 'admin'));
    });

    it('matches the account whatever the case of the email', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const newcomer = await account('casey');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: newcomer.email.toUpperCase(), role: 'viewer' });

      expect(res.status).toBe(201);
      expect(res.body.data.invitation).toEqual(invitation(newcomer.email, 'viewer'));
      await acceptInvitationTo(gw.app, await signIn(gw.app, newcomer.email), tenantId);
      expect(await rowsOf(tenantId)).toContainEqual(row(newcomer, 'viewer'));
    });

    it('an email without an account is invited all the same (201), and no tenant_users row is written', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const email = `nobody-${randomUUID()}@example.test`;

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email, role: 'member' });

      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        message: 'Member invited',
        data: { invitation: invitation(email, 'member') },
      });
      expect(await rowsOf(tenantId)).toEqual([row(owner, 'owner')]);
    });

    it('lists pending invitations after the members, with status invited and no user id', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const newcomer = await account('pending');
      const cookie = await signIn(gw.app, owner.email);
      await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: newcomer.email, role: 'member' })
        .expect(201);

      const res = await request(gw.app)
        .get('/api/auth/members')
        .set('Cookie', cookie)
        .set('x-tenant-id', tenantId);
      expect(res.status).toBe(200);
      expect(res.body.data.members).toEqual([
        member(owner, 'owner'),
        invitation(newcomer.email, 'member'),
      ]);
    });

    it('a user who is already a member (even disabled) -> 409 ALREADY_EXISTS, row unchanged', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const existing = await account('existing');
      await addMember(db, tenantId, existing.id, 'viewer', 'disabled');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: existing.email, role: 'admin' });

      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        success: false,
        error: 'Already exists',
        code: 'ALREADY_EXISTS',
        message: 'This user is already a member of the tenant',
        details: null,
      });
      expect(await rowsOf(tenantId)).toContainEqual(row(existing, 'viewer', 'disabled'));
    });
  });

  describe('PATCH /:userId (role and status)', () => {
    it('changes a role', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const user = await account('promoted');
      await addMember(db, tenantId, user.id, 'viewer');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .patch(`/api/auth/members/${user.id}`)
        .set('Cookie', cookie)
        .send({ role: 'member' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: 'Member updated',
        data: { member: member(user, 'member') },
      });
      expect(await rowsOf(tenantId)).toContainEqual(row(user, 'member'));
    });

    it('disables a member, who then (with no other active membership) gets 403 No active tenant membership on Session routes', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const user = await account('leaver');
      await addMember(db, tenantId, user.id, 'member');
      const userCookie = await signIn(gw.app, user.email);

      // While active, a Session route reaches the service.
      const before = await request(gw.app)
        .get('/api/crm/deals?probe=before-disable')
        .set('Cookie', userCookie);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({ echoed: true });

      const ownerCookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .patch(`/api/auth/members/${user.id}`)
        .set('Cookie', ownerCookie)
        .send({ status: 'disabled' });
      expect(res.status).toBe(200);
      expect(res.body.data.member).toEqual(member(user, 'member', 'disabled'));
      expect(await rowsOf(tenantId)).toContainEqual(row(user, 'member', 'disabled'));

      const probe = `/api/crm/deals?probe=${randomUUID()}`;
      const after = await request(gw.app).get(probe).set('Cookie', userCookie);
      expect(after.status).toBe(403);
      expect(after.body).toEqual({
        success: false,
        error: 'No active tenant membership',
        code: 'TENANT_ACCESS_DENIED',
        message: 'You have no active membership in any tenant',
        details: null,
      });
      // Naming the tenant explicitly does not help either.
      const named = await request(gw.app)
        .get(probe)
        .set('Cookie', userCookie)
        .set('x-tenant-id', tenantId);
      expect(named.status).toBe(403);
      expect(named.body.code).toBe('TENANT_ACCESS_DENIED');
      expect(echo.received.filter((r) => r.url === probe)).toEqual([]);
      expect(
        echo.received.filter((r) => r.url === '/api/crm/deals?probe=before-disable'),
      ).toHaveLength(1);
    });

    it('re-enables a disabled member', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const user = await account('returner');
      await addMember(db, tenantId, user.id, 'member', 'disabled');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .patch(`/api/auth/members/${user.id}`)
        .set('Cookie', cookie)
        .send({ status: 'active' });

      expect(res.status).toBe(200);
      expect(res.body.data.member).toEqual(member(user, 'member'));
      const userCookie = await signIn(gw.app, user.email);
      const deals = await request(gw.app).get('/api/crm/deals').set('Cookie', userCookie);
      expect(deals.status).toBe(200);
    });

    it('a user who is not a member of the selected tenant -> 404, their own tenant untouched', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const other = await tenantWithOwner();
      const outsider = await account('outsider');
      await addMember(db, other.tenantId, outsider.id, 'member');

      const cookie = await signIn(gw.app, owner.email);
      const res = await request(gw.app)
        .patch(`/api/auth/members/${outsider.id}`)
        .set('Cookie', cookie)
        .send({ status: 'disabled' });

      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: 'Not found',
        code: 'NOT_FOUND',
        message: 'No such member in this tenant',
        details: null,
      });
      expect(await rowsOf(tenantId)).toEqual([row(owner, 'owner')]);
      expect(await rowsOf(other.tenantId)).toEqual(
        [row(other.owner, 'owner'), row(outsider, 'member')].sort((a, b) =>
          a.user_id.localeCompare(b.user_id),
        ),
      );
    });
  });

  describe('roles', () => {
    it('an admin may add, change and disable members', async () => {
      const { tenantId } = await tenantWithOwner();
      const admin = await account('admin');
      const newcomer = await account('newcomer');
      const worker = await account('worker');
      await addMember(db, tenantId, admin.id, 'admin');
      await addMember(db, tenantId, worker.id, 'member');
      const cookie = await signIn(gw.app, admin.email);

      const added = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: newcomer.email, role: 'admin' });
      expect(added.status).toBe(201);
      await acceptInvitationTo(gw.app, await signIn(gw.app, newcomer.email), tenantId);
      const changed = await request(gw.app)
        .patch(`/api/auth/members/${newcomer.id}`)
        .set('Cookie', cookie)
        .send({ role: 'viewer' });
      expect(changed.status).toBe(200);
      const disabled = await request(gw.app)
        .patch(`/api/auth/members/${worker.id}`)
        .set('Cookie', cookie)
        .send({ status: 'disabled' });
      expect(disabled.status).toBe(200);
      const listed = await request(gw.app).get('/api/auth/members').set('Cookie', cookie);
      expect(listed.status).toBe(200);
      expect(listed.body.data.members).toHaveLength(4);

      expect(await rowsOf(tenantId)).toEqual(
        expect.arrayContaining([
          row(admin, 'admin'),
          row(newcomer, 'viewer'),
          row(worker, 'member', 'disabled'),
        ]),
      );
    });

    it('an admin may not add an owner, make one, or change an owner -> 403 FORBIDDEN, nothing changes', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const admin = await account('admin');
      const worker = await account('worker');
      const newcomer = await account('newcomer');
      await addMember(db, tenantId, admin.id, 'admin');
      await addMember(db, tenantId, worker.id, 'member');
      const before = await rowsOf(tenantId);
      const cookie = await signIn(gw.app, admin.email);

      const addOwner = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: newcomer.email, role: 'owner' });
      expect(addOwner.status).toBe(403);
      expect(addOwner.body).toEqual(forbidden('Only an owner may add an owner'));

      const ownerMessage = forbidden('Only an owner may change an owner or make one');
      const promote = await request(gw.app)
        .patch(`/api/auth/members/${worker.id}`)
        .set('Cookie', cookie)
        .send({ role: 'owner' });
      expect(promote.status).toBe(403);
      expect(promote.body).toEqual(ownerMessage);

      const promoteSelf = await request(gw.app)
        .patch(`/api/auth/members/${admin.id}`)
        .set('Cookie', cookie)
        .send({ role: 'owner' });
      expect(promoteSelf.status).toBe(403);
      expect(promoteSelf.body).toEqual(ownerMessage);

      const demoteOwner = await request(gw.app)
        .patch(`/api/auth/members/${owner.id}`)
        .set('Cookie', cookie)
        .send({ role: 'member' });
      expect(demoteOwner.status).toBe(403);
      expect(demoteOwner.body).toEqual(ownerMessage);

      const disableOwner = await request(gw.app)
        .patch(`/api/auth/members/${owner.id}`)
        .set('Cookie', cookie)
        .send({ status: 'disabled' });
      expect(disableOwner.status).toBe(403);
      expect(disableOwner.body).toEqual(ownerMessage);

      expect(await rowsOf(tenantId)).toEqual(before);
    });

    it('an owner may add another owner', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const coOwner = await account('co-owner');
      const cookie = await signIn(gw.app, owner.email);

      const res = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .send({ email: coOwner.email, role: 'owner' });

      expect(res.status).toBe(201);
      expect(res.body.data.invitation).toEqual(invitation(coOwner.email, 'owner'));
      await acceptInvitationTo(gw.app, await signIn(gw.app, coOwner.email), tenantId);
      expect(await rowsOf(tenantId)).toContainEqual(row(coOwner, 'owner'));
    });

    it.each(['member', 'viewer'] as const)(
      'a %s may not list, add or change -> 403 FORBIDDEN, nothing changes',
      async (role) => {
        const { tenantId } = await tenantWithOwner();
        const user = await account(role);
        const target = await account('target');
        const newcomer = await account('newcomer');
        await addMember(db, tenantId, user.id, role);
        await addMember(db, tenantId, target.id, 'member');
        const before = await rowsOf(tenantId);
        const cookie = await signIn(gw.app, user.email);
        // A viewer's writes are refused by the platform-wide viewer rule first.
        const writeRefusal = role === 'viewer' ? forbidden('Viewers may only read') : ROLE_REQUIRED;

        const list = await request(gw.app).get('/api/auth/members').set('Cookie', cookie);
        expect(list.status).toBe(403);
        expect(list.body).toEqual(ROLE_REQUIRED);

        const add = await request(gw.app)
          .post('/api/auth/members')
          .set('Cookie', cookie)
          .send({ email: newcomer.email, role: 'member' });
        expect(add.status).toBe(403);
        expect(add.body).toEqual(writeRefusal);

        const change = await request(gw.app)
          .patch(`/api/auth/members/${target.id}`)
          .set('Cookie', cookie)
          .send({ status: 'disabled' });
        expect(change.status).toBe(403);
        expect(change.body).toEqual(writeRefusal);

        const promoteSelf = await request(gw.app)
          .patch(`/api/auth/members/${user.id}`)
          .set('Cookie', cookie)
          .send({ role: 'admin' });
        expect(promoteSelf.status).toBe(403);
        expect(promoteSelf.body).toEqual(writeRefusal);

        expect(await rowsOf(tenantId)).toEqual(before);
      },
    );
  });

  describe('the last active owner', () => {
    const CONFLICT = {
      success: false,
      error: 'Conflict',
      code: 'CONFLICT',
      message: 'A tenant must keep at least one active owner',
      details: null,
    };

    // `{ status: 'invited' }` is refused before this rule applies (400, see validation).
    it.each([{ role: 'admin' }, { status: 'disabled' }])(
      'cannot be changed with %j -> 409 CONFLICT',
      async (change) => {
        const { tenantId, owner } = await tenantWithOwner();
        // A disabled owner does not count as a remaining active owner.
        const formerOwner = await account('former-owner');
        await addMember(db, tenantId, formerOwner.id, 'owner', 'disabled');
        const before = await rowsOf(tenantId);
        const cookie = await signIn(gw.app, owner.email);

        const res = await request(gw.app)
          .patch(`/api/auth/members/${owner.id}`)
          .set('Cookie', cookie)
          .send(change);

        expect(res.status).toBe(409);
        expect(res.body).toEqual(CONFLICT);
        expect(await rowsOf(tenantId)).toEqual(before);
      },
    );

    it('can step down once another owner is active', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const coOwner = await account('co-owner');
      await addMember(db, tenantId, coOwner.id, 'owner');
      const cookie = await signIn(gw.app, owner.email);

      const res = await request(gw.app)
        .patch(`/api/auth/members/${owner.id}`)
        .set('Cookie', cookie)
        .send({ role: 'admin' });

      expect(res.status).toBe(200);
      expect(await rowsOf(tenantId)).toEqual(
        [row(owner, 'admin'), row(coOwner, 'owner')].sort((a, b) =>
          a.user_id.localeCompare(b.user_id),
        ),
      );
    });

    it('two owners demoting each other at the same time leave one active owner', async () => {
      const { tenantId, owner } = await tenantWithOwner();
      const coOwner = await account('co-owner');
      await addMember(db, tenantId, coOwner.id, 'owner');
      const ownerCookie = await signIn(gw.app, owner.email);
      const coOwnerCookie = await signIn(gw.app, coOwner.email);

      // Hold the tenant's membership rows until both requests are past their session checks
      // and stuck behind this lock (directly or behind each other), so they truly overlap.
      const { pending } = await withSystemScope(db.db, async (trx) => {
        await trx
          .selectFrom('tenant_users')
          .select('user_id')
          .where('tenant_id', '=', tenantId)
          .forUpdate()
          .execute();
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        const holder = rows[0].pid;
        const pending = Promise.all([
          request(gw.app)
            .patch(`/api/auth/members/${coOwner.id}`)
            .set('Cookie', ownerCookie)
            .send({ role: 'member' }),
          request(gw.app)
            .patch(`/api/auth/members/${owner.id}`)
            .set('Cookie', coOwnerCookie)
            .send({ role: 'member' }),
        ]);
        await eventually(async () => {
          const waiting = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity a
            where a.wait_event_type = 'Lock'
              and (${holder}::int = any(pg_blocking_pids(a.pid)) or exists (
                select 1 from pg_stat_activity b
                where b.pid = any(pg_blocking_pids(a.pid))
                  and ${holder}::int = any(pg_blocking_pids(b.pid))))`.execute(db.db);
          expect(waiting.rows[0].n).toBe(2);
        });
        // Not awaited here: the requests finish only once this transaction lets go.
        return { pending };
      });
      const results = await pending;

      const [first, second] = [...results].sort((a, b) => a.status - b.status);
      expect(first.status).toBe(200);
      expect(second.status).toBe(403);
      expect(second.body).toEqual(ROLE_REQUIRED);
      const rows = await rowsOf(tenantId);
      expect(rows.filter((r) => r.role === 'owner' && r.status === 'active')).toHaveLength(1);
    });
  });

  describe('validation', () => {
    async function ownerCookie() {
      const { tenantId, owner } = await tenantWithOwner();
      return { tenantId, owner, cookie: await signIn(gw.app, owner.email) };
    }

    function validation(message: string, issues: Array<{ path: string; code: string }>) {
      return {
        success: false,
        error: 'Validation failed',
        code: 'VALIDATION_ERROR',
        message,
        details: { issues: issues.map((i) => ({ ...i, message: expect.any(String) })) },
      };
    }

    it.each([
      [
        { email: 'not-an-email', role: 'member' },
        'Invalid member: email: must be an email address',
        [{ path: 'email', code: 'invalid_format' }],
      ],
      [
        { email: 'someone@example.test', role: 'superuser' },
        'Invalid member: role: must be one of: owner, admin, member, viewer',
        [{ path: 'role', code: 'invalid_value' }],
      ],
      [
        { role: 'member' },
        'Invalid member: email: must be an email address',
        [{ path: 'email', code: 'invalid_type' }],
      ],
    ])('POST %j -> 400 VALIDATION_ERROR', async (body, message, issues) => {
      const { tenantId, owner, cookie } = await ownerCookie();
      const res = await request(gw.app).post('/api/auth/members').set('Cookie', cookie).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(validation(message, issues));
      expect(await rowsOf(tenantId)).toEqual([row(owner, 'owner')]);
    });

    it.each([
      [{}, 'Invalid member change: give a role or a status', [{ path: '', code: 'custom' }]],
      [
        { role: 'boss' },
        'Invalid member change: role: must be one of: owner, admin, member, viewer',
        [{ path: 'role', code: 'invalid_value' }],
      ],
      [
        { status: 'banned' },
        'Invalid member change: status: must be one of: active, disabled (an invitation is accepted by the invited user only)',
        [{ path: 'status', code: 'invalid_value' }],
      ],
      [
        { status: 'invited' },
        'Invalid member change: status: must be one of: active, disabled (an invitation is accepted by the invited user only)',
        [{ path: 'status', code: 'invalid_value' }],
      ],
    ])('PATCH %j -> 400 VALIDATION_ERROR', async (body, message, issues) => {
      const { tenantId, owner, cookie } = await ownerCookie();
      const user = await account('target');
      await addMember(db, tenantId, user.id, 'member');
      const res = await request(gw.app)
        .patch(`/api/auth/members/${user.id}`)
        .set('Cookie', cookie)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(validation(message, issues));
      expect(await rowsOf(tenantId)).toContainEqual(row(owner, 'owner'));
      expect(await rowsOf(tenantId)).toContainEqual(row(user, 'member'));
    });

    it('PATCH of a user id that is not a uuid -> 400 VALIDATION_ERROR', async () => {
      const { cookie } = await ownerCookie();
      const res = await request(gw.app)
        .patch('/api/auth/members/not-a-uuid')
        .set('Cookie', cookie)
        .send({ role: 'member' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        validation('Invalid user id: must be a user id (uuid)', [
          { path: '', code: 'invalid_format' },
        ]),
      );
    });

    it('a body that is not JSON -> 400 INVALID_JSON', async () => {
      const { cookie } = await ownerCookie();
      const res = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .set('content-type', 'application/json')
        .send('{"email": ');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'INVALID_JSON' });
    });
  });

  describe('another tenant named by x-tenant-id', () => {
    const DENIED = {
      success: false,
      error: 'Tenant access denied',
      code: 'TENANT_ACCESS_DENIED',
      message: 'You are not an active member of the tenant named by the x-tenant-id header',
      details: null,
    };

    it('-> 403 TENANT_ACCESS_DENIED for list, add and change; nothing changes in that tenant', async () => {
      const mine = await tenantWithOwner();
      const theirs = await tenantWithOwner();
      const theirMember = await account('their-member');
      const newcomer = await account('newcomer');
      await addMember(db, theirs.tenantId, theirMember.id, 'member');
      const before = await rowsOf(theirs.tenantId);
      const cookie = await signIn(gw.app, mine.owner.email);

      const list = await request(gw.app)
        .get('/api/auth/members')
        .set('Cookie', cookie)
        .set('x-tenant-id', theirs.tenantId);
      expect(list.status).toBe(403);
      expect(list.body).toEqual(DENIED);

      const add = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .set('x-tenant-id', theirs.tenantId)
        .send({ email: newcomer.email, role: 'owner' });
      expect(add.status).toBe(403);
      expect(add.body).toEqual(DENIED);

      const addSelf = await request(gw.app)
        .post('/api/auth/members')
        .set('Cookie', cookie)
        .set('x-tenant-id', theirs.tenantId)
        .send({ email: mine.owner.email, role: 'owner' });
      expect(addSelf.status).toBe(403);
      expect(addSelf.body).toEqual(DENIED);

      for (const [target, change] of [
        [theirMember, { status: 'disabled' }],
        [theirs.owner, { role: 'viewer' }],
      ] as const) {
        const res = await request(gw.app)
          .patch(`/api/auth/members/${target.id}`)
          .set('Cookie', cookie)
          .set('x-tenant-id', theirs.tenantId)
          .send(change);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(DENIED);
      }

      expect(await rowsOf(theirs.tenantId)).toEqual(before);
      expect(await rowsOf(mine.tenantId)).toEqual([row(mine.owner, 'owner')]);
    });

    it('where the caller was an owner but is now disabled -> 403 TENANT_ACCESS_DENIED', async () => {
      const mine = await tenantWithOwner();
      const theirs = await tenantWithOwner();
      await addMember(db, theirs.tenantId, mine.owner.id, 'owner', 'disabled');
      const before = await rowsOf(theirs.tenantId);
      const cookie = await signIn(gw.app, mine.owner.email);

      const res = await request(gw.app)
        .patch(`/api/auth/members/${mine.owner.id}`)
        .set('Cookie', cookie)
        .set('x-tenant-id', theirs.tenantId)
        .send({ status: 'active' });

      expect(res.status).toBe(403);
      expect(res.body).toEqual(DENIED);
      expect(await rowsOf(theirs.tenantId)).toEqual(before);
    });
  });
});
