/**
 * The gateway's cross-tenant lookups (DESIGN.md, Tenancy): everything it must know before a
 * tenant is chosen. Each runs in the system scope and returns only what it resolves; nothing
 * else in the gateway reads outside a tenant scope.
 */
import { withSystemScope, type Database, type MembershipStatus, type Trx } from '@crm/shared/db';
import type { Role } from '@crm/shared/identity';
import { sql, type Kysely } from 'kysely';

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
}

function sessionUserQuery(trx: Trx, tokenHash: string) {
  return trx
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.email', 'users.name'])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', sql<Date>`now()`);
}

/** The user of an unexpired session, by the session token's hash. */
export function findSessionUser(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<SessionUser | undefined> {
  return withSystemScope(db, (trx) => sessionUserQuery(trx, tokenHash).executeTakeFirst());
}

export interface Membership {
  tenantId: string;
  slug: string;
  name: string;
  plan: string;
  role: Role;
  status: MembershipStatus;
  joinedAt: Date;
}

function membershipsQuery(trx: Trx, userId: string) {
  return trx
    .selectFrom('tenant_users')
    .innerJoin('tenants', 'tenants.id', 'tenant_users.tenant_id')
    .select([
      'tenants.id as tenantId',
      'tenants.slug',
      'tenants.name',
      'tenants.plan',
      'tenant_users.role',
      'tenant_users.status',
      'tenant_users.joined_at as joinedAt',
    ])
    .where('tenant_users.user_id', '=', userId)
    .orderBy('tenant_users.joined_at', 'desc')
    .orderBy('tenants.id');
}

/** Every membership of a user, most recently joined first (SPEC.md tenant selection order). */
export function listMemberships(db: Kysely<Database>, userId: string): Promise<Membership[]> {
  return withSystemScope(db, (trx) => membershipsQuery(trx, userId).execute());
}

/**
 * Every Session request: the session's user and their memberships in one transaction (the
 * hot path of the gateway; one scope switch instead of two).
 */
export function findSessionWithMemberships(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<{ user: SessionUser; memberships: Membership[] } | undefined> {
  return withSystemScope(db, async (trx) => {
    const user = await sessionUserQuery(trx, tokenHash).executeTakeFirst();
    if (!user) return undefined;
    return { user, memberships: await membershipsQuery(trx, user.id).execute() };
  });
}

export interface Credentials {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
}

/** Sign-in: the account of an email, with its password hash (never leaves the gateway). */
export function findCredentials(
  db: Kysely<Database>,
  email: string,
): Promise<Credentials | undefined> {
  return withSystemScope(db, (trx) =>
    trx
      .selectFrom('users')
      .select(['id', 'email', 'name', 'password_hash as passwordHash'])
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst(),
  );
}

/** Adding a member by email: the id of an existing account (users of other tenants are invisible in a tenant scope). */
export async function findUserIdByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<string | undefined> {
  const row = await withSystemScope(db, (trx) =>
    trx
      .selectFrom('users')
      .select('id')
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst(),
  );
  return row?.id;
}
