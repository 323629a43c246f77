import { randomToken, sha256Hex } from '@crm/shared/crypto';
import { withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';
import { deleteSessionByHash, insertSession } from './sessions.repository';

/**
 * Server-side sessions: the client holds a random 256-bit token in an HttpOnly cookie; the
 * database holds only its sha256, so a leaked sessions table cannot be replayed.
 */
export async function createSession(
  db: Kysely<Database>,
  userId: string,
  ttlSeconds: number,
): Promise<string> {
  const token = randomToken(32);
  await withSystemScope(db, (trx) =>
    insertSession(trx, {
      tokenHash: sha256Hex(token),
      userId,
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    }),
  );
  return token;
}

/** Revokes one session (sign-out); every gateway replica drops its cached copy. */
export async function deleteSession(db: Kysely<Database>, token: string): Promise<void> {
  const tokenHash = sha256Hex(token);
  await withSystemScope(db, (trx) => deleteSessionByHash(trx, tokenHash));
}

export function hashSessionToken(token: string): string {
  return sha256Hex(token);
}
