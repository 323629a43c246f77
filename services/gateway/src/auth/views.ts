import type { Membership, PendingInvitation } from '../tenancy/cross-tenant-lookups';

/** A membership as the user sees it (`/me`, sign-in, active-tenant, an accepted invitation). */
export function membershipView(m: Membership) {
  return {
    tenantId: m.tenantId,
    slug: m.slug,
    name: m.name,
    role: m.role,
    status: m.status,
    joinedAt: m.joinedAt,
  };
}

/** A pending invitation as the invitee sees it: which tenant, which role, since when. */
export function invitationView(i: PendingInvitation) {
  return {
    invitationId: i.invitationId,
    tenantId: i.tenantId,
    slug: i.slug,
    name: i.name,
    role: i.role,
    status: 'invited' as const,
    invitedAt: i.invitedAt,
  };
}
