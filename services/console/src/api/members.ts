import { api, type Envelope } from './client';

/** The roles a membership can have, most powerful first (as the gateway names them). */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * A member of the selected tenant as GET /api/auth/members lists it (owners and admins only);
 * a pending invitation comes last, with status `invited`, an invitationId and no userId.
 */
export interface Member {
  userId?: string;
  invitationId?: string;
  email: string;
  name: string | null;
  role: Role;
  status: string;
  joinedAt?: string;
  invitedAt?: string;
}

export const MEMBERS_KEY = ['members'] as const;

export function fetchMembers(signal?: AbortSignal) {
  return api<Envelope<{ members: Member[] }>>('/api/auth/members', { signal });
}

/** Invites an email with a role: they join by accepting (POST /api/auth/members). */
export function inviteMember(body: { email: string; role: Role }) {
  return api<Envelope<{ invitation: Member }>>('/api/auth/members', { method: 'POST', body });
}

export function revokeInvitation(invitationId: string) {
  return api<Envelope<{ invitation: Member }>>(
    `/api/auth/members/invitations/${encodeURIComponent(invitationId)}`,
    { method: 'DELETE' },
  );
}

export function changeMemberRole(userId: string, role: Role) {
  return api<Envelope<{ member: Member }>>(`/api/auth/members/${encodeURIComponent(userId)}`, {
    method: 'PATCH',
    body: { role },
  });
}

export function removeMember(userId: string) {
  return api<Envelope<{ member: Member }>>(`/api/auth/members/${encodeURIComponent(userId)}`, {
    method: 'DELETE',
  });
}
