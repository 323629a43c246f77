/**
 * mcp-ingest's cross-tenant lookups: what it must know before a tenant is
 * known. Each runs in the system scope and returns only what it resolves; everything else runs
 * inside withTenant for the key's tenant.
 */
import { withSystemScope, type Database } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';

export interface BearerKey {
  id: string;
  tenantId: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** MCP key hash -> the key's tenant, scopes and state; undefined when no key has this hash. */
export async function findKeyByHash(
  db: Kysely<Database>,
  keyHash: string,
): Promise<BearerKey | undefined> {
  const row = await withSystemScope(db, (trx) =>
    trx
      .selectFrom('mcp_keys')
      .select([
        'id',
        'tenant_id as tenantId',
        'scopes',
        'expires_at as expiresAt',
        'revoked_at as revokedAt',
      ])
      .where('key_hash', '=', keyHash)
      .executeTakeFirst(),
  );
  return row;
}

/**
 * Marks a key used now, unless it was marked within the last minute: at most one write per key
 * and minute, whatever the call rate (the caller also skips it in-process).
 */
export async function touchKey(db: Kysely<Database>, keyId: string): Promise<void> {
  await withSystemScope(db, (trx) =>
    trx
      .updateTable('mcp_keys')
      .set({ last_used_at: sql`now()` })
      .where('id', '=', keyId)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
        ]),
      )
      .execute(),
  );
}
