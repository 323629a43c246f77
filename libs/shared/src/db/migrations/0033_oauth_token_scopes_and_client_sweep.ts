import { sql, type Kysely } from 'kysely';
import { OAUTH_SCOPES_0029 } from './0029_mcp_oauth';

/**
 * Each OAuth token carries its own scopes. A refresh asking for fewer scopes (OAuth 2.1 §4.3.3,
 * RFC 6749 §6) narrows the access token it issues, not the grant: the grant and the new refresh
 * token keep every scope the user approved, so a later refresh without `scope` gets them all
 * back. The resource server checks an access token's own scopes (with its grant not revoked).
 *
 * Tokens issued before this migration were as wide as their grant (a narrowing refresh narrowed
 * the grant itself), so they take its scopes.
 *
 * OAuth clients nobody connected are swept (the gateway's retention, policy
 * `unusedOAuthClients`): registration is open, so they would pile up. The sweep takes the oldest
 * clients by created_at that have no grant and no live authorization request; the indexes let
 * it read them without scanning a table, and let a client's delete find the rows referring to it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const scopes = sql.raw(OAUTH_SCOPES_0029.map((s) => `'${s}'`).join(', '));
  await sql`ALTER TABLE oauth_tokens ADD COLUMN scopes text[]`.execute(db);
  await sql`UPDATE oauth_tokens t SET scopes = g.scopes
    FROM oauth_grants g WHERE g.id = t.grant_id`.execute(db);
  await sql`ALTER TABLE oauth_tokens ALTER COLUMN scopes SET NOT NULL,
    ADD CONSTRAINT oauth_tokens_scopes_check
      CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY[${scopes}]::text[])`.execute(db);

  await sql`CREATE INDEX oauth_clients_by_created ON oauth_clients (created_at)`.execute(db);
  await sql`CREATE INDEX oauth_grants_by_client ON oauth_grants (client_id)`.execute(db);
  await sql`CREATE INDEX oauth_authorization_requests_by_client
    ON oauth_authorization_requests (client_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX oauth_clients_by_created, oauth_grants_by_client,
    oauth_authorization_requests_by_client`.execute(db);
  await sql`ALTER TABLE oauth_tokens DROP COLUMN scopes`.execute(db);
}
