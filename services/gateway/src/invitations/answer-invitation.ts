import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors } from '@crm/shared/http';
import type { Kysely } from 'kysely';
import { deleteInvitation, lockTenantMembers } from '../members/members.repository';
import {
  findOwnInvitationTenant,
  type Membership,
  type SessionUser,
} from '../tenancy/cross-tenant-lookups';
import {
  findInvitation,
  findMembership,
  insertActiveMembership,
  markInvitationAccepted,
} from './invitations.repository';

const noSuchInvitation = () => errors.notFound('No such invitation');

/**
 * Runs `answer` on one of the user's own invitations, in its tenant's scope and under that
 * tenant's membership lock, after reading the invitation again there: it may have been
 * revoked, declined or accepted since it was looked up. Someone else's invitation, a declined
 * or revoked one and an id that never existed are the same 404; one this user already
 * accepted is a 409.
 */
async function answerOwnInvitation<T>(
  db: Kysely<Database>,
  user: SessionUser,
  invitationId: string,
  answer: (trx: Trx, invitation: { tenantId: string; role: Membership['role'] }) => Promise<T>,
): Promise<T> {
  const tenantId = await findOwnInvitationTenant(db, invitationId, user);
  if (!tenantId) throw noSuchInvitation();
  return withTenant(db, tenantId, async (trx) => {
    await lockTenantMembers(trx, tenantId);
    const invitation = await findInvitation(trx, tenantId, invitationId);
    if (invitation?.accepted_by === user.id) {
      throw errors.conflict('You have already accepted this invitation');
    }
    if (!invitation || invitation.accepted_at || invitation.email !== user.email.toLowerCase()) {
      throw noSuchInvitation();
    }
    return answer(trx, { tenantId, role: invitation.role });
  });
}

/**
 * Accepting makes the user an active member with the invited role, joined now: with no header
 * and no active-tenant cookie this tenant is then theirs by default (specified: header, then
 * cookie, then the most recently joined active membership), which is now their own choice.
 */
export function acceptInvitation(
  db: Kysely<Database>,
  user: SessionUser,
  invitationId: string,
): Promise<Membership> {
  return answerOwnInvitation(db, user, invitationId, async (trx, { tenantId, role }) => {
    // Only reachable through a membership written outside the API (adding a member checks).
    if (!(await insertActiveMembership(trx, tenantId, user.id, role))) {
      throw errors.conflict('You already have a membership in this tenant');
    }
    await markInvitationAccepted(trx, tenantId, invitationId, user.id);
    return findMembership(trx, tenantId, user.id);
  });
}

/** Declining deletes the invitation; the inviting tenant sees it gone from its list. */
export async function declineInvitation(
  db: Kysely<Database>,
  user: SessionUser,
  invitationId: string,
): Promise<void> {
  await answerOwnInvitation(db, user, invitationId, async (trx, { tenantId }) => {
    await deleteInvitation(trx, tenantId, invitationId);
  });
}
