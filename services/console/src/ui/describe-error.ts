import { ApiError } from '../api/client';

/**
 * What a failed call tells the user: a 403 which role is missing, a 429 when to retry, else the
 * server's message, with what was wrong for a 400 (a 401 is not described: the screen goes to
 * sign-in instead).
 */
export function describeError(error: unknown, now = new Date()): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Check your connection.';
  const message = error.message.replace(/\.$/, '');
  if (error.status === 403) {
    return `${message}. Your role in this tenant does not allow this (a viewer may only read; managing members needs owner or admin): ask an owner or admin of the tenant.`;
  }
  if (error.status === 429) {
    const wait = error.retryAfterSeconds;
    if (!wait) return 'Too many requests. Try again in a minute.';
    const at = new Date(now.getTime() + wait * 1000).toLocaleTimeString();
    return `Too many requests. Try again in ${wait} second${wait === 1 ? '' : 's'} (at ${at}).`;
  }
  // A 400's `error` is a title ("Validation failed"); what was wrong is in its detail.
  if (error.status === 400 && error.detail)
    return `${message}: ${error.detail.replace(/\.$/, '')}.`;
  return `${message}.`;
}
