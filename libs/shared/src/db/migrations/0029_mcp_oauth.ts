import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE } from '../roles';
import { enableTenantRls } from './tenant-rls';

/** Every MCP scope as of this migration (ingest, and the read scopes it adds). */
export const OAUTH_SCOPES_0029 = [
  'mcp:ingest:leads',
  'mcp:ingest:contacts',
  'mcp:ingest:products',
  'mcp:ingest:messaging',
  'mcp:read:leads',
  'mcp:read:contacts',
  'mcp:read:products',
  'mcp:read:messaging',
  'mcp:read:deals',
];

/**
 * MCP over OAuth 2.1: the gateway is the authorization server, mcp-ingest the resource server.
 *
 * - `oauth_clients`: public clients, registered dynamically (RFC 7591, `client_id` ours) or
 *   named by a Client ID Metadata Document (`client_id` is the document's https URL; the row is
 *   its cached copy, `fetched_at` says when). Clients exist before any tenant: system role only.
 * - `oauth_authorization_requests`: an authorize call waiting for the user's consent on the
 *   console page (short-lived; the page shows it by its random id). System role only.
 * - `oauth_grants`: what a user approved for one client in one tenant (scopes, resource). The
 *   tenant's: owners and admins list and revoke them (GET/DELETE /api/mcp/connections), so the
 *   client's name and redirect host are copied in at approval (clients are not tenant rows).
 * - `oauth_codes` and `oauth_tokens`: only SHA-256 hashes of codes, access and refresh tokens,
 *   each tied to its grant. A code or refresh token is used once (`used_at`); presenting a used
 *   one again revokes the grant. Resolved before a tenant is known: system role only.
 *
 * MCP keys may hold the read scopes too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const scopes = sql.raw(OAUTH_SCOPES_0029.map((s) => `'${s}'`).join(', '));
  await sql`ALTER TABLE mcp_keys DROP CONSTRAINT mcp_keys_scopes_check,
    ADD CONSTRAINT mcp_keys_scopes_check
      CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY[${scopes}]::text[])`.execute(db);

  await sql`CREATE TABLE oauth_clients (
    client_id text PRIMARY KEY CHECK (length(client_id) BETWEEN 1 AND 2048),
    client_name text NOT NULL CHECK (length(client_name) BETWEEN 1 AND 200),
    redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
    source text NOT NULL CHECK (source IN ('registration', 'metadata_document')),
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    fetched_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);

  await sql`CREATE TABLE oauth_authorization_requests (
    id text PRIMARY KEY,
    client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    redirect_uri text NOT NULL,
    scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY[${scopes}]::text[]),
    state text,
    code_challenge text NOT NULL CHECK (code_challenge ~ '^[A-Za-z0-9_-]{43}$'),
    resource text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX oauth_authorization_requests_by_expiry
    ON oauth_authorization_requests (expires_at)`.execute(db);

  await sql`CREATE TABLE oauth_grants (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    client_name text NOT NULL,
    redirect_host text NOT NULL,
    user_id uuid REFERENCES users(id) ON DELETE SET NULL,
    scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY[${scopes}]::text[]),
    resource text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at timestamptz
  )`.execute(db);
  await sql`CREATE INDEX oauth_grants_by_created ON oauth_grants (tenant_id, created_at DESC, id)`.execute(
    db,
  );
  await enableTenantRls(db, 'oauth_grants');

  await sql`CREATE TABLE oauth_codes (
    code_hash text PRIMARY KEY CHECK (code_hash ~ '^[0-9a-f]{64}$'),
    grant_id uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    redirect_uri text NOT NULL,
    code_challenge text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
  )`.execute(db);
  await sql`CREATE INDEX oauth_codes_by_grant ON oauth_codes (grant_id)`.execute(db);
  await sql`CREATE INDEX oauth_codes_by_expiry ON oauth_codes (expires_at)`.execute(db);

  await sql`CREATE TABLE oauth_tokens (
    token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    grant_id uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
  )`.execute(db);
  await sql`CREATE INDEX oauth_tokens_by_grant ON oauth_tokens (grant_id)`.execute(db);
  await sql`CREATE INDEX oauth_tokens_by_expiry ON oauth_tokens (expires_at)`.execute(db);

  await sql
    .raw(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON oauth_clients, oauth_authorization_requests,
      oauth_codes, oauth_tokens TO ${SYSTEM_ROLE}`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS oauth_tokens, oauth_codes, oauth_grants,
    oauth_authorization_requests, oauth_clients`.execute(db);
  await sql`DELETE FROM mcp_keys WHERE NOT scopes <@ ARRAY['mcp:ingest:leads',
    'mcp:ingest:contacts', 'mcp:ingest:products', 'mcp:ingest:messaging']::text[]`.execute(db);
  await sql`ALTER TABLE mcp_keys DROP CONSTRAINT mcp_keys_scopes_check,
    ADD CONSTRAINT mcp_keys_scopes_check CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY[
      'mcp:ingest:leads', 'mcp:ingest:contacts', 'mcp:ingest:products',
      'mcp:ingest:messaging']::text[])`.execute(db);
}
