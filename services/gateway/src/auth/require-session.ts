import type { Database } from '@crm/shared/db';
import { errors } from '@crm/shared/http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import { readCookie, SESSION_COOKIE, TENANT_COOKIE } from './cookies';
import { hashSessionToken } from './sessions';
import {
  findSessionUser,
  findSessionInOneRoundTrip,
  type Membership,
  type SessionUser,
} from '../tenancy/cross-tenant-lookups';
import type { SessionCache } from '../tenancy/session-cache';
import { selectTenant } from '../tenancy/select-tenant';

declare module 'http' {
  interface IncomingMessage {
    /** Set by the gateway's session middleware: the signed-in user. */
    sessionUser?: SessionUser;
    /** Set by requireTenantSession(): the membership the request acts in. */
    membership?: Membership;
  }
}

/** The signed-in user of a request, or 401 `Unauthorized` (specified). */
function sessionTokenHash(req: Request): string | undefined {
  const token = readCookie(req, SESSION_COOKIE);
  return token ? hashSessionToken(token) : undefined;
}

export async function authenticate(db: Kysely<Database>, req: Request): Promise<SessionUser> {
  const tokenHash = sessionTokenHash(req);
  const user = tokenHash ? await findSessionUser(db, tokenHash) : undefined;
  if (!user) throw errors.unauthorized('Sign in to continue');
  req.sessionUser = user;
  return user;
}

/** The `x-tenant-id` header and active-tenant cookie of a request. */
export function tenantRequestOf(req: Request) {
  const header = req.headers['x-tenant-id'];
  return {
    header: typeof header === 'string' ? header : undefined,
    cookie: readCookie(req, TENANT_COOKIE),
  };
}

/**
 * Every Session route: a session (else 401 `Unauthorized`), then an active membership chosen by the
 * specified selection order (see select-tenant.ts; else 403 `No active tenant membership` /
 * `TENANT_ACCESS_DENIED`). On success `req.identity` holds user, tenant and role for the signed
 * header to the service. With a cache, a session resolved in the last SESSION_CACHE_TTL_MS is
 * reused (see session-cache.ts for how sign-out and membership changes reach every replica).
 */
export function requireTenantSession(pool: Pool, cache?: SessionCache): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    (async () => {
      const tokenHash = sessionTokenHash(req);
      let session = tokenHash ? cache?.get(tokenHash) : undefined;
      if (!session && tokenHash) {
        const readIn = cache?.begin() ?? 0;
        session = await findSessionInOneRoundTrip(pool, tokenHash);
        if (session) cache?.set(tokenHash, session, readIn);
      }
      if (!session) throw errors.unauthorized('Sign in to continue');
      const { user } = session;
      req.sessionUser = user;
      const selection = selectTenant(session.memberships, tenantRequestOf(req));
      if (!selection.ok) throw selection.error;
      req.membership = selection.membership;
      req.identity = {
        userId: user.id,
        tenantId: selection.membership.tenantId,
        role: selection.membership.role,
      };
    })().then(() => next(), next);
  };
}
