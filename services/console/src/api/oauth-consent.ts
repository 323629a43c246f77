import { api, type Envelope } from './client';

/**
 * An app's pending request to act on the user's CRM (an OAuth authorization request the gateway
 * stored when the app sent the user to /api/oauth/authorize): which app, where the answer goes
 * back to, the scopes it asks for (described by the API) and the tenants the user may connect
 * it to (those where they are an owner or an admin).
 */
export interface AuthorizationRequest {
  id: string;
  client: {
    client_id: string;
    name: string | null;
    redirect_host: string;
    /** The host of the app's metadata document, which vouches for its name; null when unverified. */
    document_host: string | null;
  };
  scopes: Array<{ scope: string; description: string }>;
  tenants: Array<{ id: string; name: string; role: string }>;
  expires_at: string;
}

export type Decision = { decision: 'approve'; tenant_id: string } | { decision: 'deny' };

export const authorizationRequestKey = (id: string) => ['oauth-request', id] as const;

const requestPath = (id: string) => `/api/auth/oauth/requests/${encodeURIComponent(id)}`;

export function fetchAuthorizationRequest(id: string, signal?: AbortSignal) {
  return api<Envelope<AuthorizationRequest>>(requestPath(id), { signal }).then((r) => r.data);
}

/** Answers the request (used up either way): where to send the browser back to the app. */
export function decide(id: string, decision: Decision) {
  return api<Envelope<{ redirect_to: string }>>(`${requestPath(id)}/decision`, {
    method: 'POST',
    body: decision,
  }).then((r) => r.data);
}
