import { api, type Envelope } from './client';

export interface User {
  id: string;
  email: string;
  name: string | null;
}
export interface Membership {
  tenantId: string;
  slug: string;
  name: string;
  role: string;
  status: string;
}
export interface Invitation {
  invitationId: string;
  tenantId: string;
  slug: string;
  name: string;
  role: string;
  invitedAt: string;
}
export interface Me {
  user: User;
  memberships: Membership[];
  selectedTenant: Membership | null;
  invitations: Invitation[];
}

export const ME_KEY = ['me'] as const;
export const ME_PATH = '/api/auth/me';

export const fetchMe = (signal?: AbortSignal) =>
  api<Envelope<Me>>(ME_PATH, { signal }).then((r) => r.data);

export const signIn = (body: { email: string; password: string }) =>
  api<Envelope<{ user: User }>>('/api/auth/sign-in', { method: 'POST', body });

export const signUp = (body: {
  email: string;
  password: string;
  name?: string;
  tenantName: string;
}) => api<Envelope<{ user: User }>>('/api/auth/sign-up', { method: 'POST', body });

export const signOut = () => api('/api/auth/sign-out', { method: 'POST', body: {} });

export const setActiveTenant = (tenantId: string) =>
  api('/api/auth/active-tenant', { method: 'POST', body: { tenantId } });

export const answerInvitation = (invitationId: string, answer: 'accept' | 'decline') =>
  api(`/api/auth/invitations/${encodeURIComponent(invitationId)}/${answer}`, {
    method: 'POST',
    body: {},
  });
