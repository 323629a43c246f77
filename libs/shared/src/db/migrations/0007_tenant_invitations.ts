import { sql, type Kysely } from 'kysely';
import { enableTenantRls } from './tenant-rls';

/**
 * Joining a tenant needs the user's consent: adding a member by email stores an
 * invitation addressed to that email, and a `tenant_users` row (active, joined now) appears
 * only when the owner of that email accepts. One table whether or not the email has an
 * account yet, so the add answers the same either way and a stranger's user id never enters
 * the inviting tenant. An accepted invitation stays as the record of who joined through it
 * (a second answer is then a 409); a declined or revoked one is deleted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE tenant_invitations (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    email text NOT NULL CHECK (email = lower(email) AND length(email) <= 320),
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    accepted_at timestamptz,
    accepted_by uuid REFERENCES users(id) ON DELETE SET NULL,
    CHECK ((accepted_at IS NULL) = (accepted_by IS NULL))
  )`.execute(db);
  // One pending invitation per email and tenant; accepted ones are history.
  await sql`CREATE UNIQUE INDEX tenant_invitations_pending ON tenant_invitations (tenant_id, email)
    WHERE accepted_at IS NULL`.execute(db);
  // An invitee's pending invitations across tenants (a cross-tenant lookup by email).
  await sql`CREATE INDEX tenant_invitations_by_email ON tenant_invitations (email)
    WHERE accepted_at IS NULL`.execute(db);
  await enableTenantRls(db, 'tenant_invitations');

  // No code ever wrote an 'invited' tenant_users row; any made by hand become invitations the
  // user can answer, so that an 'invited' membership means the same thing everywhere.
  await sql`INSERT INTO tenant_invitations (tenant_id, email, role, created_at)
    SELECT tu.tenant_id, lower(u.email), tu.role, tu.joined_at
      FROM tenant_users tu JOIN users u ON u.id = tu.user_id
     WHERE tu.status = 'invited'`.execute(db);
  await sql`DELETE FROM tenant_users WHERE status = 'invited'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS tenant_invitations`.execute(db);
}
