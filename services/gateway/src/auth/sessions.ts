import { randomToken, sha256Hex } from '@crm/shared/crypto';
import { withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';
import { notifySessionChange } from '../tenancy/session-cache';

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
    trx
      .insertInto('sessions')
      .values({
        token_hash: sha256Hex(token),
        user_id: userId,
        expires_at: new Date(Date.now() + ttlSeconds * 1000),
      })
      .execute(),
  );
  return token;
}

/** Revokes one session (sign-out). */
export async function deleteSession(db: Kysely<Database>, token: string): Promise<void> {
  const tokenHash = sha256Hex(token);
  await withSystemScope(db, async (trx) => {
    await trx.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    // Every gateway replica drops its cached copy of this session once this commits.
    await notifySessionChange(trx, { token: tokenHash });
  });
}

export function hashSessionToken(token: string): string {
  return sha256Hex(token);
}
