import { z } from 'zod';
import { hmac, safeEqual } from '../crypto';
import { ROLES, type Role } from '../db/schema';

/** The header the gateway sets after resolving session and tenant; clients' copies are stripped. */
export const IDENTITY_HEADER = 'x-crm-identity';

export { ROLES, type Role };

export interface Identity {
  userId: string;
  tenantId: string;
  role: Role;
}

const VERSION = 'v1';
/** Long enough for one hop gateway -> service, short enough that a leaked header is soon useless. */
export const DEFAULT_IDENTITY_TTL_SECONDS = 60;

const payloadSchema = z.object({
  sub: z.uuid(),
  tid: z.uuid(),
  role: z.enum(ROLES),
  exp: z.number().int(),
});

function sign(secret: string, signedPart: string): string {
  return hmac('sha256', secret, signedPart, 'base64url');
}

/** `v1.<base64url JSON { sub, tid, role, exp }>.<base64url HMAC-SHA256 of "v1.<payload>">` */
export function signIdentity(
  identity: Identity,
  secret: string,
  options: { ttlSeconds?: number; now?: number } = {},
): string {
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const payload = {
    sub: identity.userId,
    tid: identity.tenantId,
    role: identity.role,
    exp: nowSeconds + (options.ttlSeconds ?? DEFAULT_IDENTITY_TTL_SECONDS),
  };
  const signedPart = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${signedPart}.${sign(secret, signedPart)}`;
}

export type IdentityRejection = 'missing' | 'malformed' | 'bad_signature' | 'expired';

export type VerifyResult =
  { ok: true; identity: Identity } | { ok: false; reason: IdentityRejection };

/**
 * Checks the signature (constant time) before reading the payload, then the expiry. `secret`
 * may be several: the current one and, while INTERNAL_TOKEN_SECRET is being rotated, the
 * previous one (a header signed with either is accepted).
 */
export function verifyIdentity(
  token: string | undefined,
  secret: string | readonly string[],
  options: { now?: number } = {},
): VerifyResult {
  if (!token) return { ok: false, reason: 'missing' };
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
  const signedPart = `${parts[0]}.${parts[1]}`;
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!secrets.some((candidate) => safeEqual(sign(candidate, signedPart), parts[2])))
    return { ok: false, reason: 'bad_signature' };
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const payload = payloadSchema.safeParse(decoded);
  if (!payload.success) return { ok: false, reason: 'malformed' };
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (payload.data.exp <= nowSeconds) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    identity: { userId: payload.data.sub, tenantId: payload.data.tid, role: payload.data.role },
  };
}
