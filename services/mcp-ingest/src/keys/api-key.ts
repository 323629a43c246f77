import { randomToken, sha256Hex } from '@crm/shared/crypto';

/** Every MCP ingest key starts with this, so a leaked one is recognisable (e.g. by scanners). */
export const KEY_PREFIX = 'crm_mcp_';
/** 32 random bytes, base64url: 43 characters. */
const KEY_PATTERN = /^crm_mcp_[A-Za-z0-9_-]{43}$/;
/** What the API shows of a key: the prefix and the first characters of its secret part. */
const DISPLAY_CHARACTERS = KEY_PREFIX.length + 6;

export interface NewKey {
  /** The whole key: returned once, at creation, never stored. */
  secret: string;
  hash: string;
  prefix: string;
}

export function generateKey(): NewKey {
  const secret = `${KEY_PREFIX}${randomToken(32)}`;
  return { secret, hash: hashKey(secret), prefix: secret.slice(0, DISPLAY_CHARACTERS) };
}

/** SHA-256 is right here: the key has 256 bits of entropy, so there is nothing to brute-force. */
export function hashKey(secret: string): string {
  return sha256Hex(secret);
}

export function looksLikeKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
