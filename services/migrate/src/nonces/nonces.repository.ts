import { withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';

/**
 * Records a verified request's nonce: true when it is new, false when it was used before. One
 * statement; the primary key decides, so two replicas racing on one nonce let exactly one
 * through. Throws when the nonce cannot be recorded: the caller refuses the request.
 */
export async function recordNonce(db: Kysely<Database>, nonce: string): Promise<boolean> {
  const inserted = await withSystemScope(db, (trx) =>
    trx
      .insertInto('migrate_nonces')
      .values({ nonce })
      .onConflict((oc) => oc.column('nonce').doNothing())
      .returning('nonce')
      .executeTakeFirst(),
  );
  return inserted !== undefined;
}
