import type { Trx } from '@crm/shared/db';
import { notifySessionChange } from '../tenancy/session-changes.repository';
import type { Role } from '@crm/shared/identity';
import { sql } from 'kysely';
import type { MemberAdd, MemberChange } from './members.schema';

/**
 * Serialises every membership change of one tenant (a transaction-scoped advisory lock):
 * adding, changing and revoking by its managers, and an invitee's answer. Whatever is read
 * after it (the actor's role, the remaining owners, an invitation) cannot change before the
 * transaction ends.
 */
export async function lockTenantMembers(trx: Trx, tenantId: string): Promise<void> {
  const lockKey = `tenant-members:${tenantId}`;
  await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
}

function membersQuery(trx: Trx) {
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

export function listMembers(trx: Trx, tenantId: string) {
  return membersQuery(trx).where('tenant_users.tenant_id', '=', tenantId).execute();
}

export function findMember(trx: Trx, tenantId: string, userId: string) {
  return membersQuery(trx)
    .where('tenant_users.tenant_id', '=', tenantId)
    .where('users.id', '=', userId)
    .executeTakeFirstOrThrow();
}

/**
 * The tenant's pending invitations, as its managers see them: the email they invited, never
 * whether it has an account (no user id, no name) until the invitee accepts.
 */
function pendingInvitationsQuery(trx: Trx, tenantId: string) {
  return trx
    .selectFrom('tenant_invitations')
    .select(['id as invitationId', 'email', 'role', 'created_at as invitedAt'])
    .where('tenant_id', '=', tenantId)
    .where('accepted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id');
}

export function listPendingInvitationsOfTenant(trx: Trx, tenantId: string) {
  return pendingInvitationsQuery(trx, tenantId).execute();
}

export function findPendingInvitation(trx: Trx, tenantId: string, invitationId: string) {
  return pendingInvitationsQuery(trx, tenantId).where('id', '=', invitationId).executeTakeFirst();
}

/** The role of an active member, or undefined. */
export async function findActiveMemberRole(
  trx: Trx,
  tenantId: string,
  userId: string,
): Promise<Role | undefined> {
  const member = await trx
    .selectFrom('tenant_users')
    .select('role')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return member?.role;
}

/** Row-level security limits the count to the scoped tenant. */
export async function countOtherActiveOwners(trx: Trx, exceptUserId: string): Promise<number> {
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
 * Row-level security shows only this tenant's members (whom the caller may list anyway), so
 * this says nothing about accounts elsewhere.
 */
export async function isMemberByEmail(trx: Trx, tenantId: string, email: string) {
  const member = await trx
    .selectFrom('tenant_users')
    .innerJoin('users', 'users.id', 'tenant_users.user_id')
    .select('users.id')
    .where('tenant_users.tenant_id', '=', tenantId)
    .where(sql`lower(users.email)`, '=', email)
    .executeTakeFirst();
  return member !== undefined;
}

/** The invitation stored, or undefined when one to this email is already pending. */
export function insertInvitation(trx: Trx, tenantId: string, invitedBy: string, input: MemberAdd) {
  return trx
    .insertInto('tenant_invitations')
    .values({
      tenant_id: tenantId,
      email: input.email,
      role: input.role,
      invited_by: invitedBy,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'email']).where('accepted_at', 'is', null).doNothing(),
    )
    .returning(['id as invitationId', 'email', 'role', 'created_at as invitedAt'])
    .executeTakeFirst();
}

export async function deleteInvitation(
  trx: Trx,
  tenantId: string,
  invitationId: string,
): Promise<void> {
  await trx
    .deleteFrom('tenant_invitations')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', invitationId)
    .execute();
}

/** The membership's role and status, its row locked until the transaction ends. */
export function lockMembership(trx: Trx, tenantId: string, userId: string) {
  return trx
    .selectFrom('tenant_users')
    .select(['role', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateMembership(
  trx: Trx,
  tenantId: string,
  userId: string,
  change: MemberChange,
): Promise<void> {
  await trx
    .updateTable('tenant_users')
    .set({
      ...(change.role && { role: change.role }),
      ...(change.status && { status: change.status }),
    })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .execute();
  // Every gateway replica drops this user's cached memberships once this commits.
  await notifySessionChange(trx, { user: userId });
}

/** Removes the membership (the account stays, and its other tenants' memberships). */
export async function deleteMembership(trx: Trx, tenantId: string, userId: string): Promise<void> {
  await trx
    .deleteFrom('tenant_users')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .execute();
  // Every gateway replica drops this user's cached memberships once this commits.
  await notifySessionChange(trx, { user: userId });
}
