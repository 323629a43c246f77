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

/**
 * The grant an OAuth access token stands for: its id and tenant, and the token's own scopes
 * (those the user approved, or fewer when a refresh asked for fewer).
 */
export interface BearerGrant {
  id: string;
  tenantId: string;
  scopes: string[];
}

/**
 * OAuth access token hash -> its grant and scopes, when the token is an access token that has
 * not expired and its grant is neither revoked nor bound to another resource than `resource`
 * (this MCP server's URL); undefined otherwise. One statement, so a revoked grant stops its
 * tokens at once.
 */
export async function findGrantByAccessTokenHash(
  db: Kysely<Database>,
  tokenHash: string,
  resource: string,
): Promise<BearerGrant | undefined> {
  return withSystemScope(db, (trx) =>
    trx
      .selectFrom('oauth_tokens as t')
      .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
      .select(['g.id as id', 'g.tenant_id as tenantId', 't.scopes as scopes'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.kind', '=', 'access')
      .where('t.expires_at', '>', sql<Date>`now()`)
      .where('g.revoked_at', 'is', null)
      .where('g.resource', '=', resource)
      .executeTakeFirst(),
  );
}

/** As touchKey, for a grant an access token was used under. */
export async function touchGrant(db: Kysely<Database>, grantId: string): Promise<void> {
  await withSystemScope(db, (trx) =>
    trx
      .updateTable('oauth_grants')
      .set({ last_used_at: sql`now()` })
      .where('id', '=', grantId)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
        ]),
      )
      .execute(),
  );
}
