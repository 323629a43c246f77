import type { Request, RequestHandler } from 'express';
import { errors } from '../errors';
import type { Role } from './identity-token';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * POST routes that only read: their request (what to read, in which shape) is too rich for a
 * query string, but they change nothing, so a viewer may call them. Exact paths, so a
 * trailing slash or another spelling stays refused. The gateway and the owning service both
 * apply this one list through forbidViewerWrites().
 */
export const READ_ONLY_POST_PATHS: ReadonlySet<string> = new Set(['/api/exports']);

function isRead(req: Request): boolean {
  if (READ_METHODS.has(req.method)) return true;
  if (req.method !== 'POST') return false;
  // originalUrl: the full path even where the guard is mounted under a prefix.
  const url = req.originalUrl ?? req.url;
  const query = url.indexOf('?');
  return READ_ONLY_POST_PATHS.has(query === -1 ? url : url.slice(0, query));
}

/**
 * Role rule every Session route can rely on: a `viewer` may only read (GET, HEAD, OPTIONS and
 * the READ_ONLY_POST_PATHS). Runs after requireIdentity() (in a service) or tenant resolution
 * (in the gateway).
 */
export function forbidViewerWrites(): RequestHandler {
  return (req, _res, next) => {
    if (req.identity?.role === 'viewer' && !isRead(req)) {
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
