import { ApiError } from '../api/client';

/**
 * What a failed call tells the user: a 403 which role is missing, a 429 when to retry, else the
 * server's message and what it says went wrong (a 401 is not described: the screen goes to
 * sign-in instead).
 */
export function describeError(error: unknown, now = new Date()): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Check your connection.';
  const trim = (text: string) => text.replace(/\.$/, '');
  const message = trim(error.message);
  if (error.status === 403) {
    // The detail names the rule ("Viewers may only read", "needs one of the roles: ...").
    return `${trim(error.detail ?? error.message)}. Your role in this tenant does not allow this (a viewer may only read; managing members needs owner or admin): ask an owner or admin of the tenant.`;
  }
  if (error.status === 429) {
    const wait = error.retryAfterSeconds;
    if (!wait) return 'Too many requests. Try again in a minute.';
    const at = new Date(now.getTime() + wait * 1000).toLocaleTimeString();
    return `Too many requests. Try again in ${wait} second${wait === 1 ? '' : 's'} (at ${at}).`;
  }
  // An envelope's `error` is a title ("Validation failed", "Service unavailable"); what went
  // wrong is in its message.
  return error.detail ? `${message}: ${trim(error.detail)}.` : `${message}.`;
}
