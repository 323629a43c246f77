import { AppError } from '@crm/shared/http';
import type { RejectionReason } from './verify-signed-request';

const MESSAGES: Record<RejectionReason, string> = {
  missing_signing_secret:
    'The server has no signing secret configured (SVC_MIGRATE_SIGNING_SECRET)',
  timestamp_out_of_range:
    'x-svc-timestamp must be the time of signing in milliseconds, within 5 minutes of the server clock',
  bad_signature:
    'x-svc-signature does not match the request (method, path, timestamp, nonce and body), or a signing header is missing',
  replay: 'This nonce was already used; sign the retry again with a new nonce and timestamp',
  nonce_store_error:
    'The nonce could not be recorded, so the request was refused; retry it signed anew',
};

/** Specified: every rejection of a signed call is a 401 whose `error` is the reason. */
export function rejection(reason: RejectionReason): AppError {
  return new AppError({
    status: 401,
    code: 'UNAUTHORIZED',
    error: reason,
    message: MESSAGES[reason],
  });
}
