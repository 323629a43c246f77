import { hashPassword, verifyPassword } from '@crm/shared/crypto';
import type { Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { Router, type RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import {
  findCredentials,
  listMemberships,
  listPendingInvitations,
} from '../tenancy/cross-tenant-lookups';
import { clientAddress } from '../rate-limit/limits';
import type { SignInFailures } from '../rate-limit/sign-in-failures';
import { authenticate, tenantRequestOf } from './require-session';
import { selectTenant } from '../tenancy/select-tenant';
import type { SessionCache } from '../tenancy/session-cache';
import { signUp } from './accounts';
import { activeTenantSchema, signInSchema, signUpSchema } from './auth.schema';
import {
  clearCookie,
  readCookie,
  SESSION_COOKIE,
  setCookie,
  TENANT_COOKIE,
  type CookiePolicy,
} from './cookies';
import { createSession, deleteSession, hashSessionToken } from './sessions';
import { invitationView, membershipView } from './views';

export interface AuthRoutesOptions {
  db: Kysely<Database>;
  cookies: CookiePolicy;
  sessionTtlSeconds: number;
  bodyLimitBytes: number;
  /** Brute-force guard on sign-in and sign-up (per client IP). */
  signInRateLimit: RequestHandler;
  /** Consecutive failed sign-ins per account and per account + address (growing waits). */
  signInFailures: SignInFailures;
  /** The Session routes' cache: sign-out drops the session here before answering. */
  sessionCache?: SessionCache;
}

/**
 * `/api/auth/*`: sign-up, sign-in, sign-out, me, active-tenant (the gateway's own routes;
 * members and invitations have routers of their own).
 */
export function authRoutes(options: AuthRoutesOptions): Router {
  const { db, cookies } = options;
  const router = Router();
  router.use(jsonBody(options.bodyLimitBytes));

  // Compared against when the email is unknown, so both failures take the same time.
  const decoyHash = hashPassword('decoy-password-never-matches');

  router.post('/sign-up', options.signInRateLimit, async (req, res) => {
    const input = validate(signUpSchema, req.body, 'sign-up');
    const account = await signUp(db, input);
    const token = await createSession(db, account.user.id, options.sessionTtlSeconds);
    setCookie(res, cookies, SESSION_COOKIE, token);
    sendSuccess(res, account, { status: 201, message: 'Account created' });
  });

  router.post('/sign-in', options.signInRateLimit, async (req, res) => {
    const input = validate(signInSchema, req.body, 'sign-in');
    // Counted as a failure from here on, for a registered email or not, until it succeeds.
    const attempt = await options.signInFailures.admit(input.email, clientAddress(req));
    const credentials = await findCredentials(db, input.email.trim());
    const valid = await verifyPassword(
      input.password,
      credentials?.passwordHash ?? (await decoyHash),
    );
    if (!credentials || !valid) throw errors.unauthorized('Invalid email or password');
    await attempt.succeeded();
    const token = await createSession(db, credentials.id, options.sessionTtlSeconds);
    setCookie(res, cookies, SESSION_COOKIE, token);
    const memberships = await listMemberships(db, credentials.id);
    sendSuccess(
      res,
      {
        user: { id: credentials.id, email: credentials.email, name: credentials.name },
        tenants: memberships.map(membershipView),
      },
      { message: 'Signed in' },
    );
  });

  router.post('/sign-out', async (req, res) => {
    const token = readCookie(req, SESSION_COOKIE);
    if (token) {
      await deleteSession(db, token);
      // Other replicas drop it on the NOTIFY sent with the delete; this one at once.
      options.sessionCache?.drop({ token: hashSessionToken(token) });
    }
    clearCookie(res, cookies, SESSION_COOKIE);
    clearCookie(res, cookies, TENANT_COOKIE);
    sendSuccess(res, { signedOut: true }, { message: 'Signed out' });
  });

  router.get('/me', async (req, res) => {
    const user = await authenticate(db, req);
    const [memberships, invitations] = await Promise.all([
      listMemberships(db, user.id),
      listPendingInvitations(db, user.email),
    ]);
    const selection = selectTenant(memberships, tenantRequestOf(req));
    sendSuccess(res, {
      user,
      memberships: memberships.map(membershipView),
      selectedTenant: selection.ok ? membershipView(selection.membership) : null,
      // Waiting for this user's answer; none of them is a membership until accepted.
      invitations: invitations.map(invitationView),
    });
  });

  router.post('/active-tenant', async (req, res) => {
    const user = await authenticate(db, req);
    const { tenantId } = validate(activeTenantSchema, req.body, 'active-tenant');
    const memberships = await listMemberships(db, user.id);
    const membership = memberships.find(
      (m) => m.tenantId === tenantId.toLowerCase() && m.status === 'active',
    );
    if (!membership) throw errors.tenantAccessDenied('You are not an active member of that tenant');
    setCookie(res, cookies, TENANT_COOKIE, membership.tenantId);
    sendSuccess(
      res,
      { activeTenant: membershipView(membership) },
      { message: 'Active tenant set' },
    );
  });

  return router;
}
