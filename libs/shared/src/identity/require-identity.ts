import type { Request, RequestHandler } from 'express';
import { errors } from '../errors';
import { IDENTITY_HEADER, verifyIdentity, type Identity } from './identity-token';

declare module 'http' {
  interface IncomingMessage {
    /** Set by requireIdentity() on Session routes: who calls, for which tenant, in which role. */
    identity?: Identity;
  }
}

/** The gateway's signing secret, and its previous value while it is being rotated. */
export interface IdentitySecrets {
  internalTokenSecret: string;
  previousInternalTokenSecret?: string;
}

/**
 * Guards Session routes inside a service: without a valid, unexpired identity header signed by
 * the gateway the answer is 401 `Unauthorized`. A service never trusts a bare x-tenant-id.
 * During a rotation of INTERNAL_TOKEN_SECRET a header signed with the previous secret passes too.
 */
export function requireIdentity(secrets: string | IdentitySecrets): RequestHandler {
  const accepted =
    typeof secrets === 'string'
      ? [secrets]
      : [secrets.internalTokenSecret, secrets.previousInternalTokenSecret].filter(
          (secret): secret is string => secret !== undefined,
        );
  return (req, _res, next) => {
    const header = req.headers[IDENTITY_HEADER];
    const result = verifyIdentity(typeof header === 'string' ? header : undefined, accepted);
    if (!result.ok) {
      next(errors.unauthorized('A valid session is required', { reason: result.reason }));
      return;
    }
    req.identity = result.identity;
    next();
  };
}

/** The identity of a request that passed requireIdentity(); throws 401 if there is none. */
export function identityOf(req: Request): Identity {
  if (!req.identity) throw errors.unauthorized('A valid session is required');
  return req.identity;
}
