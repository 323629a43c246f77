import type { Trx } from '@crm/shared/db';
import { notifySessionChange } from '../tenancy/session-changes.repository';
import { sql } from 'kysely';
import { MEMBERSHIP_COLUMNS, type Membership } from '../tenancy/cross-tenant-lookups';

export function findInvitation(trx: Trx, tenantId: string, invitationId: string) {
  return trx
    .selectFrom('tenant_invitations')
    .select(['email', 'role', 'accepted_at', 'accepted_by'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', invitationId)
    .executeTakeFirst();
}

/** An active membership joined now; false when the user already has one in this tenant. */
export async function insertActiveMembership(
  trx: Trx,
  tenantId: string,
  userId: string,
  role: Membership['role'],
): Promise<boolean> {
  const joined = await trx
    .insertInto('tenant_users')
    .values({
      tenant_id: tenantId,
      user_id: userId,
      role,
      status: 'active',
      joined_at: sql`now()`,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  // Every gateway replica drops this user's cached memberships once this commits.
  if (joined) await notifySessionChange(trx, { user: userId });
  return joined !== undefined;
}

export async function markInvitationAccepted(
  trx: Trx,
  tenantId: string,
  invitationId: string,
  userId: string,
): Promise<void> {
  await trx
    .updateTable('tenant_invitations')
    .set({ accepted_at: sql<Date>`now()`, accepted_by: userId })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', invitationId)
    .execute();
}

export function findMembership(trx: Trx, tenantId: string, userId: string): Promise<Membership> {
  return trx
    .selectFrom('tenant_users')
    .innerJoin('tenants', 'tenants.id', 'tenant_users.tenant_id')
    .select(MEMBERSHIP_COLUMNS)
    .where('tenant_users.tenant_id', '=', tenantId)
    .where('tenant_users.user_id', '=', userId)
    .executeTakeFirstOrThrow();
}
