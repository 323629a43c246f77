import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import type { SessionCache } from '../tenancy/session-cache';
import { identityOf, requireRole, type Role } from '@crm/shared/identity';
import { Router, type RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import {
  countOtherActiveOwners,
  deleteInvitation,
  deleteMembership,
  findActiveMemberRole,
  findMember,
  findPendingInvitation,
  insertInvitation,
  isMemberByEmail,
  listMembers,
  listPendingInvitationsOfTenant,
  lockMembership,
  lockTenantMembers,
  updateMembership,
} from './members.repository';
import { addSchema, changeSchema, invitationIdSchema, userIdSchema } from './members.schema';

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
  const actorRole = await findActiveMemberRole(trx, tenantId, actorUserId);
  if (!actorRole || !MANAGERS.includes(actorRole)) {
    throw errors.forbidden(`This action needs one of the roles: ${MANAGERS.join(', ')}`);
  }
  return actorRole;
}

/**
 * `/api/auth/members`: membership management of the selected tenant, for its owners and
 * admins (a member or viewer gets 403 `FORBIDDEN`). Adding someone invites their email: they
 * join only by accepting (`/api/auth/invitations`), and the answer to the add is the same
 * whether or not the email has an account. Only an owner may grant or change the owner role
 * (or remove an owner), and a tenant always keeps at least one active owner.
 */
export function memberRoutes(
  db: Kysely<Database>,
  sessionChain: RequestHandler[],
  bodyLimitBytes: number,
  sessionCache?: SessionCache,
): Router {
  const router = Router();
  router.use(...sessionChain, requireRole(...MANAGERS), jsonBody(bodyLimitBytes));

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const { members, invitations } = await withTenant(db, tenantId, async (trx) => ({
      members: await listMembers(trx, tenantId),
      invitations: await listPendingInvitationsOfTenant(trx, tenantId),
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
      if (await isMemberByEmail(trx, tenantId, input.email)) {
        throw errors.alreadyExists('This user is already a member of the tenant');
      }
      const inserted = await insertInvitation(trx, tenantId, actorUserId, input);
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
      const invitation = await findPendingInvitation(trx, tenantId, invitationId);
      if (!invitation) throw errors.notFound('No pending invitation with this id in this tenant');
      if (invitation.role === 'owner' && actorRole !== 'owner') {
        throw errors.forbidden('Only an owner may revoke an owner invitation');
      }
      await deleteInvitation(trx, tenantId, invitationId);
      return invitation;
    });
    sendSuccess(
      res,
      { invitation: tenantInvitationView(revoked, 'revoked') },
      { message: 'Invitation revoked' },
    );
  });

  router.delete('/:userId', async (req, res) => {
    const { tenantId, userId: actorUserId } = identityOf(req);
    const userId = validate(userIdSchema, req.params.userId, 'user id');
    const removed = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      const current = await lockMembership(trx, tenantId, userId);
      if (!current || current.status === 'invited') {
        throw errors.notFound('No such member in this tenant');
      }
      if (current.role === 'owner' && actorRole !== 'owner') {
        throw errors.forbidden('Only an owner may remove an owner');
      }
      const isActiveOwner = current.role === 'owner' && current.status === 'active';
      if (isActiveOwner && (await countOtherActiveOwners(trx, userId)) === 0) {
        throw errors.conflict('A tenant must keep at least one active owner');
      }
      const member = await findMember(trx, tenantId, userId);
      await deleteMembership(trx, tenantId, userId);
      return member;
    });
    sessionCache?.drop({ user: userId });
    sendSuccess(
      res,
      { member: { ...removed, status: 'removed' as const } },
      { message: 'Member removed' },
    );
  });

  router.patch('/:userId', async (req, res) => {
    const { tenantId, userId: actorUserId } = identityOf(req);
    const userId = validate(userIdSchema, req.params.userId, 'user id');
    const change = validate(changeSchema, req.body, 'member change');
    const member = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      const current = await lockMembership(trx, tenantId, userId);
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
      if (stopsBeingActiveOwner && (await countOtherActiveOwners(trx, userId)) === 0) {
        throw errors.conflict('A tenant must keep at least one active owner');
      }
      await updateMembership(trx, tenantId, userId, change);
      return findMember(trx, tenantId, userId);
    });
    // Other replicas drop it on the NOTIFY sent with the change; this one at once.
    sessionCache?.drop({ user: userId });
    sendSuccess(res, { member }, { message: 'Member updated' });
  });

  return router;
}
