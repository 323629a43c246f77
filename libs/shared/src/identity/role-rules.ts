import type { RequestHandler } from 'express';
import { errors } from '../http/errors';
import type { Role } from './identity-token';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Role rule every Session route can rely on: a `viewer` may only read. Runs after
 * requireIdentity() (in a service) or tenant resolution (in the gateway).
 */
export function forbidViewerWrites(): RequestHandler {
  return (req, _res, next) => {
    if (req.identity?.role === 'viewer' && !READ_METHODS.has(req.method)) {
      next(errors.forbidden('Viewers may only read'));
      return;
    }
    next();
  };
}

/** Only these roles may go on (e.g. membership management: owner and admin). */
export function requireRole(...roles: Role[]): RequestHandler {
  return (req, _res, next) => {
    if (!req.identity || !roles.includes(req.identity.role)) {
      next(errors.forbidden(`This action needs one of the roles: ${roles.join(', ')}`));
      return;
    }
    next();
  };
}
