import type { Member, Role } from '../../api/members';

/**
 * Why the signed-in manager may not act on a row, as the gateway's rules say it (it refuses
 * the same requests anyway): undefined when the action is allowed. Only an owner may change,
 * remove or make an owner (or revoke an owner's invitation); a tenant keeps at least one
 * active owner.
 */
export function whyNotChange(member: Member, actor: Role | undefined, activeOwners: number) {
  if (member.role === 'owner' && actor !== 'owner') {
    return 'Only an owner may change or remove an owner.';
  }
  if (member.role === 'owner' && member.status === 'active' && activeOwners <= 1) {
    return 'The last active owner: make another member owner first.';
  }
  return undefined;
}

export function whyNotRevoke(invitation: Member, actor: Role | undefined) {
  if (invitation.role === 'owner' && actor !== 'owner') {
    return 'Only an owner may revoke an owner invitation.';
  }
  return undefined;
}

/** The roles `actor` may give: an admin may not make anyone owner. */
export function assignableRoles(actor: Role | undefined): Role[] {
  return actor === 'owner' ? ['owner', 'admin', 'member', 'viewer'] : ['admin', 'member', 'viewer'];
}
