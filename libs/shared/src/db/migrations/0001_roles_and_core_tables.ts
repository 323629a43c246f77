import { sql, type Kysely } from 'kysely';
import { SYSTEM_ROLE, TENANT_ROLE } from '../roles';
import { enableTenantRls } from './tenant-rls';

async function createRole(db: Kysely<unknown>, role: string): Promise<void> {
  // Roles belong to the whole cluster, so another database (or a concurrent migration) may
  // have created it already.
  await sql
    .raw(
      `DO $$ BEGIN
         CREATE ROLE ${role} NOLOGIN;
       EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
       END $$`,
    )
    .execute(db);
  // The connecting user must be a member to SET ROLE to it (a superuser already may).
  await sql.raw(`GRANT ${role} TO CURRENT_USER`).execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createRole(db, TENANT_ROLE);
  await createRole(db, SYSTEM_ROLE);
  await sql.raw(`GRANT USAGE ON SCHEMA public TO ${TENANT_ROLE}, ${SYSTEM_ROLE}`).execute(db);

  // NULLIF: after a transaction that set it LOCAL ends, the setting reads '' rather than NULL.
  await sql`CREATE OR REPLACE FUNCTION app_current_tenant() RETURNS uuid
    LANGUAGE sql STABLE AS $$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::uuid $$`.execute(
    db,
  );

  await sql`CREATE TABLE tenants (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 63),
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    plan text NOT NULL DEFAULT 'free',
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  // A tenant sees its own row only.
  await sql`ALTER TABLE tenants ENABLE ROW LEVEL SECURITY`.execute(db);
  await sql`ALTER TABLE tenants FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`CREATE POLICY tenant_isolation ON tenants USING (id = app_current_tenant())`.execute(
    db,
  );
  await sql
    .raw(`CREATE POLICY system_access ON tenants TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`)
    .execute(db);
  await sql.raw(`GRANT SELECT ON tenants TO ${TENANT_ROLE}`).execute(db);
  await sql.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON tenants TO ${SYSTEM_ROLE}`).execute(db);

  await sql`CREATE TABLE users (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email text NOT NULL CHECK (email = lower(email) AND length(email) <= 320),
    password_hash text NOT NULL,
    name text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX users_email_unique ON users (lower(email))`.execute(db);

  await sql`CREATE TABLE tenant_users (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'invited', 'disabled')),
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, user_id)
  )`.execute(db);
  // Session -> memberships, newest first (specified: tenant selection falls back to the most
  // recently joined active membership).
  await sql`CREATE INDEX tenant_users_by_user ON tenant_users (user_id, joined_at DESC)`.execute(
    db,
  );
  await enableTenantRls(db, 'tenant_users');

  // Inside a tenant, a user row is visible only for members of that tenant, and never its
  // password hash (column grant).
  await sql`ALTER TABLE users ENABLE ROW LEVEL SECURITY`.execute(db);
  await sql`ALTER TABLE users FORCE ROW LEVEL SECURITY`.execute(db);
  await sql`CREATE POLICY tenant_members ON users USING (EXISTS (
    SELECT 1 FROM tenant_users tu WHERE tu.user_id = users.id AND tu.tenant_id = app_current_tenant()
  ))`.execute(db);
  await sql
    .raw(`CREATE POLICY system_access ON users TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`)
    .execute(db);
  await sql
    .raw(`GRANT SELECT (id, email, name, created_at) ON users TO ${TENANT_ROLE}`)
    .execute(db);
  await sql.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON users TO ${SYSTEM_ROLE}`).execute(db);

  await sql`CREATE TABLE sessions (
    token_hash text PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX sessions_by_user ON sessions (user_id)`.execute(db);
  await sql`CREATE INDEX sessions_by_expiry ON sessions (expires_at)`.execute(db);
  // Sessions are resolved before any tenant is known: system role only.
  await sql.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON sessions TO ${SYSTEM_ROLE}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS sessions, tenant_users, users, tenants CASCADE`.execute(db);
  await sql`DROP FUNCTION IF EXISTS app_current_tenant()`.execute(db);
}
