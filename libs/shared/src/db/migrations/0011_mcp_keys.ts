import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

/** What an MCP ingest key may be allowed to write (specified: one or more of these scopes). */
export const MCP_INGEST_SCOPES = [
  'mcp:ingest:leads',
  'mcp:ingest:contacts',
  'mcp:ingest:products',
  'mcp:ingest:messaging',
] as const;

/**
 * MCP ingest keys: only the SHA-256 of a key is stored (a key is 32 random bytes, so a fast
 * hash is right: there is nothing to guess), beside a short display prefix. The hash is unique
 * across tenants: the bearer lookup finds the key's tenant by it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const scopes = sql.raw(MCP_INGEST_SCOPES.map((s) => `'${s}'`).join(', '));
  await sql`CREATE TABLE mcp_keys (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    prefix text NOT NULL,
    key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY[${scopes}]::text[]),
    created_by uuid REFERENCES users(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz,
    last_used_at timestamptz,
    revoked_at timestamptz
  )`.execute(db);
  await sql`CREATE INDEX mcp_keys_by_created ON mcp_keys (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await enableTenantRls(db, 'mcp_keys');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS mcp_keys`.execute(db);
}
