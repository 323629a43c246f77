import type { Trx } from '@crm/shared/db';
import { notifySessionChange } from '../tenancy/session-changes.repository';

/** A session row: only the token's hash is stored, never the token itself. */
export async function insertSession(
  trx: Trx,
  session: { tokenHash: string; userId: string; expiresAt: Date },
): Promise<void> {
  await trx
    .insertInto('sessions')
    .values({
      token_hash: session.tokenHash,
      user_id: session.userId,
      expires_at: session.expiresAt,
    })
    .execute();
}

/**
 * Deletes the session with this token hash and, in the same transaction, tells every gateway
 * replica to drop its cached copy once the delete commits.
 */
export async function deleteSessionByHash(trx: Trx, tokenHash: string): Promise<void> {
  await trx.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  await notifySessionChange(trx, { token: tokenHash });
}
