import type { Trx } from '@crm/shared/db';
import { paginate, type PageQuery } from '@crm/shared/pagination';
import { sql } from 'kysely';

/** The columns the API shows: never `key_hash`. */
export const KEY_COLUMNS = [
  'id',
  'name',
  'prefix',
  'scopes',
  'created_at',
  'created_by',
  'expires_at',
  'last_used_at',
  'revoked_at',
] as const;

export async function insertKey(
  trx: Trx,
  tenantId: string,
  key: {
    name: string;
    prefix: string;
    hash: string;
    scopes: string[];
    createdBy: string;
    expiresAt: string | null;
  },
) {
  return trx
    .insertInto('mcp_keys')
    .values({
      tenant_id: tenantId,
      name: key.name,
      prefix: key.prefix,
      key_hash: key.hash,
      scopes: key.scopes,
      created_by: key.createdBy,
      expires_at: key.expiresAt ? new Date(key.expiresAt) : null,
    })
    .returning([...KEY_COLUMNS])
    .executeTakeFirstOrThrow();
}

export async function listKeys(trx: Trx, tenantId: string, page: PageQuery<string>) {
  return paginate(
    trx
      .selectFrom('mcp_keys')
      .select([...KEY_COLUMNS])
      .where('tenant_id', '=', tenantId),
    page,
    'id',
  );
}

/** Revokes a key of the tenant (at once: the bearer check reads revoked_at); undefined if none. */
export async function revokeKey(trx: Trx, tenantId: string, id: string) {
  return trx
    .updateTable('mcp_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning([...KEY_COLUMNS])
    .executeTakeFirst();
}
