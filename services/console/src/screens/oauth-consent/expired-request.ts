import { ApiError } from '../../api/client';

/** What a request the gateway no longer knows (expired, answered, made up) tells the user. */
export const EXPIRED_REQUEST =
  'This sign-in request has expired or was already answered; start again from your app.';

/** A 404 (an unknown, expired or answered request) or a 400 (an id that is not one). */
export function isGone(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 400);
}
