import { api, type Envelope } from './client';

/** A member of the selected tenant as GET /api/auth/members lists it (owners and admins only). */
export interface Member {
  userId?: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
}

export function fetchMembers(signal?: AbortSignal) {
  return api<Envelope<{ members: Member[] }>>('/api/auth/members', { signal });
}
