import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf, requireRole, ROLES, type Role } from '@crm/shared/identity';
import { Router, type RequestHandler } from 'express';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { lockTenantMembers } from './members-lock';

const MANAGED_STATUSES = ['active', 'disabled'] as const;
const MANAGED_STATUS_MESSAGE =
  'must be one of: active, disabled (an invitation is accepted by the invited user only)';

const addSchema = z.object({
  email: z
    .email({ message: 'must be an email address' })
    .max(320)
    .transform((e) => e.toLowerCase()),
  role: z.enum(ROLES, { message: `must be one of: ${ROLES.join(', ')}` }),
});
const changeSchema = z
  .object({
    role: z.enum(ROLES, { message: `must be one of: ${ROLES.join(', ')}` }).optional(),
    // Not 'invited': only the invitee moves a membership out of (or into) that state.
    status: z.enum(MANAGED_STATUSES, { message: MANAGED_STATUS_MESSAGE }).optional(),
  })
  .refine((v) => v.role !== undefined || v.status !== undefined, {
    message: 'give a role or a status',
  });
const userIdSchema = z.uuid({ message: 'must be a user id (uuid)' });
const invitationIdSchema = z.uuid({ message: 'must be an invitation id (uuid)' });

function listMembers(trx: Trx) {
  // Row-level security limits both tables to the scoped tenant.
  return trx
    .selectFrom('tenant_users')
    .innerJoin('users', 'users.id', 'tenant_users.user_id')
    .select([
      'users.id as userId',
      'users.email',
      'users.name',
      'tenant_users.role',
      'tenant_users.status',
      'tenant_users.joined_at as joinedAt',
    ])
    .orderBy('tenant_users.joined_at');
}

/**
 * The tenant's pending invitations, as its managers see them: the email they invited, never
 * whether it has an account (no user id, no name) until the invitee accepts.
 */
function pendingInvitationsOfTenant(trx: Trx, tenantId: string) {
  return trx
    .selectFrom('tenant_invitations')
    .select(['id as invitationId', 'email', 'role', 'created_at as invitedAt'])
    .where('tenant_id', '=', tenantId)
    .where('accepted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id');
}

function tenantInvitationView(
  i: { invitationId: string; email: string; role: Role; invitedAt: Date },
  status: 'invited' | 'revoked' = 'invited',
) {
  return {
    invitationId: i.invitationId,
    email: i.email,
    role: i.role,
    status,
    invitedAt: i.invitedAt,
  };
}

const MANAGERS: Role[] = ['owner', 'admin'];

/**
 * Serialises the membership changes of one tenant (lockTenantMembers) and re-reads the
 * caller's own membership under it. The role checked before the transaction may be stale by
 * now: two owners demoting each other at the same moment would otherwise both see the other
 * as the remaining owner and leave the tenant without one.
 */
async function lockMembersAndReadActorRole(
  trx: Trx,
  tenantId: string,
  actorUserId: string,
): Promise<Role> {
  await lockTenantMembers(trx, tenantId);
  const actor = await trx
    .selectFrom('tenant_users')
    .select('role')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', actorUserId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!actor || !MANAGERS.includes(actor.role)) {
    throw errors.forbidden(`This action needs one of the roles: ${MANAGERS.join(', ')}`);
  }
  return actor.role;
}

async function otherActiveOwners(trx: Trx, exceptUserId: string): Promise<number> {
  const row = await trx
    .selectFrom('tenant_users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .where('user_id', '!=', exceptUserId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * `/api/auth/members`: membership management of the selected tenant, for its owners and
 * admins (a member or viewer gets 403 `FORBIDDEN`). Adding someone invites their email: they
 * join only by accepting (`/api/auth/invitations`), and the answer to the add is the same
 * whether or not the email has an account. Only an owner may grant or change the owner role,
 * and a tenant always keeps at least one active owner.
 */
export function memberRoutes(
  db: Kysely<Database>,
  sessionChain: RequestHandler[],
  bodyLimitBytes: number,
): Router {
  const router = Router();
  router.use(...sessionChain, requireRole(...MANAGERS), jsonBody(bodyLimitBytes));

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const { members, invitations } = await withTenant(db, tenantId, async (trx) => ({
      members: await listMembers(trx).where('tenant_users.tenant_id', '=', tenantId).execute(),
      invitations: await pendingInvitationsOfTenant(trx, tenantId).execute(),
    }));
    // Pending invitations come last, with status 'invited' and an invitationId (no userId).
    sendSuccess(res, { members: [...members, ...invitations.map((i) => tenantInvitationView(i))] });
  });

  router.post('/', async (req, res) => {
    const { tenantId, userId: actorUserId, role: checkedRole } = identityOf(req);
    const input = validate(addSchema, req.body, 'member');
    const ownerOnly = () => errors.forbidden('Only an owner may add an owner');
    if (input.role === 'owner' && checkedRole !== 'owner') throw ownerOnly();
    const invitation = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      if (input.role === 'owner' && actorRole !== 'owner') throw ownerOnly();
      // Row-level security shows only this tenant's members (whom the caller may list anyway),
      // so this check says nothing about accounts elsewhere.
      const member = await trx
        .selectFrom('tenant_users')
        .innerJoin('users', 'users.id', 'tenant_users.user_id')
        .select('users.id')
        .where('tenant_users.tenant_id', '=', tenantId)
        .where(sql`lower(users.email)`, '=', input.email)
        .executeTakeFirst();
      if (member) throw errors.alreadyExists('This user is already a member of the tenant');
      const inserted = await trx
        .insertInto('tenant_invitations')
        .values({
          tenant_id: tenantId,
          email: input.email,
          role: input.role,
          invited_by: actorUserId,
        })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'email']).where('accepted_at', 'is', null).doNothing(),
        )
        .returning(['id as invitationId', 'email', 'role', 'created_at as invitedAt'])
        .executeTakeFirst();
      if (!inserted) throw errors.alreadyExists('An invitation to this email is already pending');
      return inserted;
    });
    sendSuccess(
      res,
      { invitation: tenantInvitationView(invitation) },
      { status: 201, message: 'Member invited' },
    );
  });

  router.delete('/invitations/:invitationId', async (req, res) => {
    const { tenantId, userId: actorUserId } = identityOf(req);
    const invitationId = validate(invitationIdSchema, req.params.invitationId, 'invitation id');
    const revoked = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      const invitation = await pendingInvitationsOfTenant(trx, tenantId)
        .where('id', '=', invitationId)
        .executeTakeFirst();
      if (!invitation) throw errors.notFound('No pending invitation with this id in this tenant');
      if (invitation.role === 'owner' && actorRole !== 'owner') {
        throw errors.forbidden('Only an owner may revoke an owner invitation');
      }
      await trx
        .deleteFrom('tenant_invitations')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', invitationId)
        .execute();
      return invitation;
    });
    sendSuccess(
      res,
      { invitation: tenantInvitationView(revoked, 'revoked') },
      { message: 'Invitation revoked' },
    );
  });

  router.patch('/:userId', async (req, res) => {
    const { tenantId, userId: actorUserId } = identityOf(req);
    const userId = validate(userIdSchema, req.params.userId, 'user id');
    const change = validate(changeSchema, req.body, 'member change');
    const member = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      const current = await trx
        .selectFrom('tenant_users')
        .select(['role', 'status'])
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .forUpdate()
        .executeTakeFirst();
      if (!current) throw errors.notFound('No such member in this tenant');
      if (current.status === 'invited') {
        throw errors.conflict('This user has not accepted the invitation; only they can');
      }
      const touchesOwner = current.role === 'owner' || change.role === 'owner';
      if (touchesOwner && actorRole !== 'owner')
        throw errors.forbidden('Only an owner may change an owner or make one');
      const stopsBeingActiveOwner =
        current.role === 'owner' &&
        current.status === 'active' &&
        ((change.role ?? 'owner') !== 'owner' || (change.status ?? 'active') !== 'active');
      if (stopsBeingActiveOwner && (await otherActiveOwners(trx, userId)) === 0) {
        throw errors.conflict('A tenant must keep at least one active owner');
      }
      await trx
        .updateTable('tenant_users')
        .set({
          ...(change.role && { role: change.role }),
          ...(change.status && { status: change.status }),
        })
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .execute();
      return listMembers(trx)
        .where('tenant_users.tenant_id', '=', tenantId)
        .where('users.id', '=', userId)
        .executeTakeFirstOrThrow();
    });
    sendSuccess(res, { member }, { message: 'Member updated' });
  });

  return router;
}
