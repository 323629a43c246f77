import type { Trx } from '@crm/shared/db';
import { paginate, type PageQuery } from '@crm/shared/pagination';
import { sql } from 'kysely';

/** The columns the API shows of a grant (the tokens stay in oauth_tokens, hashed). */
export const CONNECTION_COLUMNS = [
  'id',
  'client_id',
  'client_name',
  'redirect_host',
  'scopes',
  'created_at',
  'last_used_at',
  'revoked_at',
  'user_id',
] as const;

export async function listConnections(trx: Trx, tenantId: string, page: PageQuery<string>) {
  return paginate(
    trx
      .selectFrom('oauth_grants')
      .select([...CONNECTION_COLUMNS])
      .where('tenant_id', '=', tenantId),
    page,
    'id',
  );
}

/**
 * Revokes a grant of the tenant: every token issued under it stops working at once (the bearer
 * check and the token endpoint read revoked_at). Undefined when the tenant has no such grant.
 */
export async function revokeConnection(trx: Trx, tenantId: string, id: string) {
  return trx
    .updateTable('oauth_grants')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning([...CONNECTION_COLUMNS])
    .executeTakeFirst();
}
