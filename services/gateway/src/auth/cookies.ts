import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'crm_session';
/** SPEC.md: the active-tenant cookie, second in the tenant selection order. */
export const TENANT_COOKIE = 'crm_tenant';

export interface CookiePolicy {
  secure: boolean;
  sessionTtlSeconds: number;
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parse(header)[name] || undefined;
}

function cookieOptions(policy: CookiePolicy, maxAge: number) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: policy.secure, maxAge };
}

export function setCookie(res: Response, policy: CookiePolicy, name: string, value: string): void {
  res.append('Set-Cookie', serialize(name, value, cookieOptions(policy, policy.sessionTtlSeconds)));
}

export function clearCookie(res: Response, policy: CookiePolicy, name: string): void {
  res.append(
    'Set-Cookie',
    serialize(name, '', { ...cookieOptions(policy, 0), expires: new Date(0) }),
  );
}
