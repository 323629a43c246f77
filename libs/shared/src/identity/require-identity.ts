import type { Request, RequestHandler } from 'express';
import { errors } from '../errors';
import { IDENTITY_HEADER, verifyIdentity, type Identity } from './identity-token';

declare module 'http' {
  interface IncomingMessage {
    /** Set by requireIdentity() on Session routes: who calls, for which tenant, in which role. */
    identity?: Identity;
  }
}

/**
 * Guards Session routes inside a service: without a valid, unexpired identity header signed by
 * the gateway the answer is 401 `Unauthorized`. A service never trusts a bare x-tenant-id.
 */
export function requireIdentity(secret: string): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers[IDENTITY_HEADER];
    const result = verifyIdentity(typeof header === 'string' ? header : undefined, secret);
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
