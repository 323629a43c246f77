import { randomToken, sha256Hex } from '../crypto';

/**
 * The three secrets of the MCP OAuth flow. The gateway issues them and stores only their SHA-256
 * (each is 32 random bytes, so a fast hash is right: there is nothing to guess); mcp-ingest
 * resolves an access token by the same hash. The prefixes make a leaked one recognisable (e.g.
 * by secret scanners) and tell the kinds apart before any lookup.
 */
export const OAUTH_SECRET_PREFIXES = {
  code: 'crm_oac_',
  access: 'crm_oat_',
  refresh: 'crm_ort_',
} as const;
export type OAuthSecretKind = keyof typeof OAUTH_SECRET_PREFIXES;

/** 32 random bytes, base64url: 43 characters after the prefix. */
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

export interface NewOAuthSecret {
  /** Handed to the client once, never stored. */
  secret: string;
  hash: string;
}

export function newOAuthSecret(kind: OAuthSecretKind): NewOAuthSecret {
  const secret = `${OAUTH_SECRET_PREFIXES[kind]}${randomToken(32)}`;
  return { secret, hash: hashOAuthSecret(secret) };
}

export function hashOAuthSecret(secret: string): string {
  return sha256Hex(secret);
}

export function looksLikeOAuthSecret(kind: OAuthSecretKind, value: string): boolean {
  const prefix = OAUTH_SECRET_PREFIXES[kind];
  return value.startsWith(prefix) && SECRET_BODY.test(value.slice(prefix.length));
}
