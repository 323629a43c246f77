import { toAppError } from '@crm/shared/http';
import type { ErrorRequestHandler } from 'express';

/** The error codes of the OAuth protocol endpoints (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

/**
 * A refusal of an OAuth protocol endpoint. OAuth clients parse `{ error, error_description }`
 * (not the platform's envelope), so these endpoints answer in that shape.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export function oauthErrorBody(err: OAuthError): { error: string; error_description: string } {
  return { error: err.error, error_description: err.description };
}

/**
 * The protocol endpoints' error middleware: an OAuthError as it is; anything else the client
 * caused (a body that does not parse, too large, a NUL byte) as `fallback` with the platform's
 * message and status; a server failure goes on to the platform's handler (a 500 without details).
 */
export function oauthErrorHandler(fallback: OAuthErrorCode): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof OAuthError) {
      res.status(err.status).set('Cache-Control', 'no-store').json(oauthErrorBody(err));
      return;
    }
    const appError = toAppError(err);
    if (appError.status >= 500) return next(err);
    res
      .status(appError.status)
      .set('Cache-Control', 'no-store')
      .json({ error: fallback, error_description: appError.message });
  };
}
