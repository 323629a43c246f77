import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors } from '@crm/shared/http';
import { sql, type Kysely } from 'kysely';
import { lockTenantMembers } from '../members/members-lock';
import {
  findOwnInvitationTenant,
  type Membership,
  type SessionUser,
} from '../tenancy/cross-tenant-lookups';

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
    const invitation = await trx
      .selectFrom('tenant_invitations')
      .select(['email', 'role', 'accepted_at', 'accepted_by'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', invitationId)
      .executeTakeFirst();
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
 * and no active-tenant cookie this tenant is then theirs by default (SPEC.md, Authentication
 * 1.5), which is now their own choice.
 */
export function acceptInvitation(
  db: Kysely<Database>,
  user: SessionUser,
  invitationId: string,
): Promise<Membership> {
  return answerOwnInvitation(db, user, invitationId, async (trx, { tenantId, role }) => {
    const joined = await trx
      .insertInto('tenant_users')
      .values({
        tenant_id: tenantId,
        user_id: user.id,
        role,
        status: 'active',
        joined_at: sql`now()`,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doNothing())
      .returning('user_id')
      .executeTakeFirst();
    // Only reachable through a membership written outside the API (adding a member checks).
    if (!joined) throw errors.conflict('You already have a membership in this tenant');
    await trx
      .updateTable('tenant_invitations')
      .set({ accepted_at: sql<Date>`now()`, accepted_by: user.id })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', invitationId)
      .execute();
    return trx
      .selectFrom('tenant_users')
      .innerJoin('tenants', 'tenants.id', 'tenant_users.tenant_id')
      .select([
        'tenants.id as tenantId',
        'tenants.slug',
        'tenants.name',
        'tenants.plan',
        'tenant_users.role',
        'tenant_users.status',
        'tenant_users.joined_at as joinedAt',
      ])
      .where('tenant_users.tenant_id', '=', tenantId)
      .where('tenant_users.user_id', '=', user.id)
      .executeTakeFirstOrThrow();
  });
}

/** Declining deletes the invitation; the inviting tenant sees it gone from its list. */
export async function declineInvitation(
  db: Kysely<Database>,
  user: SessionUser,
  invitationId: string,
): Promise<void> {
  await answerOwnInvitation(db, user, invitationId, async (trx, { tenantId }) => {
    await trx
      .deleteFrom('tenant_invitations')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', invitationId)
      .execute();
  });
}
