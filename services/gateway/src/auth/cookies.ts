import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'crm_session';
/** The active-tenant cookie, second in the tenant selection order (specified). */
export const TENANT_COOKIE = 'crm_tenant';

export interface CookiePolicy {
  /** Always Secure (PUBLIC_BASE_URL is https); otherwise only on requests that came over https. */
  secure: boolean;
  sessionTtlSeconds: number;
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parse(header)[name] || undefined;
}

function cookieOptions(res: Response, policy: CookiePolicy, maxAge: number) {
  // req.secure: TLS on this socket, or X-Forwarded-Proto: https from a trusted proxy (TRUST_PROXY).
  const secure = policy.secure || res.req.secure;
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure, maxAge };
}

export function setCookie(res: Response, policy: CookiePolicy, name: string, value: string): void {
  res.append(
    'Set-Cookie',
    serialize(name, value, cookieOptions(res, policy, policy.sessionTtlSeconds)),
  );
}

export function clearCookie(res: Response, policy: CookiePolicy, name: string): void {
  res.append(
    'Set-Cookie',
    serialize(name, '', { ...cookieOptions(res, policy, 0), expires: new Date(0) }),
  );
}
