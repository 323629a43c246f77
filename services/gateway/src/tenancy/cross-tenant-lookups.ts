/**
 * The gateway's cross-tenant lookups: everything it must know before a
 * tenant is chosen. Each runs in the system scope and returns only what it resolves; nothing
 * else in the gateway reads outside a tenant scope.
 */
import {
  SYSTEM_ROLE,
  withSystemScope,
  type Database,
  type MembershipStatus,
  type Trx,
} from '@crm/shared/db';
import type { Role } from '@crm/shared/identity';
import { sql, type Kysely } from 'kysely';
import type { Pool, QueryResult } from 'pg';

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

/** A membership as the API shows it (select from tenant_users joined with tenants). */
export const MEMBERSHIP_COLUMNS = [
  'tenants.id as tenantId',
  'tenants.slug',
  'tenants.name',
  'tenants.plan',
  'tenant_users.role',
  'tenant_users.status',
  'tenant_users.joined_at as joinedAt',
] as const;

function membershipsQuery(trx: Trx, userId: string) {
  return trx
    .selectFrom('tenant_users')
    .innerJoin('tenants', 'tenants.id', 'tenant_users.tenant_id')
    .select(MEMBERSHIP_COLUMNS)
    .where('tenant_users.user_id', '=', userId)
    .orderBy('tenant_users.joined_at', 'desc')
    .orderBy('tenants.id');
}

/**
 * Every membership of a user, most recently joined first (the specified fallback of tenant
 * selection).
 */
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

const TOKEN_HASH = /^[0-9a-f]{64}$/;

interface SessionRow {
  id: string;
  email: string;
  name: string | null;
  tenantId: string | null;
  slug: string;
  tenantName: string;
  plan: string;
  role: Role;
  status: MembershipStatus;
  joinedAt: Date;
  sessionExpiresAt: Date;
}

/**
 * findSessionWithMemberships() in ONE round trip: the same system-scope transaction and the same
 * rows (unexpired session, its user, every membership most recently joined first), sent as one
 * simple-protocol query string (BEGIN; SET LOCAL ROLE; SELECT; COMMIT) instead of five
 * statements one after another. The only value in it is the token hash, a SHA-256 hex digest
 * checked against /^[0-9a-f]{64}$/ before it is written into the text (anything else is no
 * session). A failed query destroys the connection rather than return it mid-transaction.
 */
export async function findSessionInOneRoundTrip(
  pool: Pool,
  tokenHash: string,
): Promise<{ user: SessionUser; memberships: Membership[]; sessionExpiresAt: number } | undefined> {
  if (!TOKEN_HASH.test(tokenHash)) return undefined;
  const client = await pool.connect();
  let results: QueryResult<SessionRow>[];
  try {
    results = (await client.query(
      `BEGIN READ ONLY; SET LOCAL ROLE ${SYSTEM_ROLE};
       SELECT u.id, u.email, u.name, t.id AS "tenantId", t.slug, t.name AS "tenantName", t.plan,
              tu.role, tu.status, tu.joined_at AS "joinedAt", s.expires_at AS "sessionExpiresAt"
         FROM sessions s
         JOIN users u ON u.id = s.user_id
         LEFT JOIN (tenant_users tu JOIN tenants t ON t.id = tu.tenant_id) ON tu.user_id = u.id
        WHERE s.token_hash = '${tokenHash}' AND s.expires_at > now()
        ORDER BY tu.joined_at DESC, t.id;
       COMMIT`,
    )) as unknown as QueryResult<SessionRow>[];
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
  client.release();
  const rows = results[2].rows;
  if (rows.length === 0) return undefined;
  const { id, email, name } = rows[0];
  return {
    user: { id, email, name },
    sessionExpiresAt: rows[0].sessionExpiresAt.getTime(),
    memberships: rows
      .filter((row) => row.tenantId !== null)
      .map((row) => ({
        tenantId: row.tenantId as string,
        slug: row.slug,
        name: row.tenantName,
        plan: row.plan,
        role: row.role,
        status: row.status,
        joinedAt: row.joinedAt,
      })),
  };
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

export interface PendingInvitation {
  invitationId: string;
  tenantId: string;
  slug: string;
  name: string;
  role: Role;
  invitedAt: Date;
}

/**
 * An invitee's pending invitations, in every tenant, newest first: those addressed to their
 * account's email (an invitation made before they signed up shows up once they have).
 */
export function listPendingInvitations(
  db: Kysely<Database>,
  email: string,
): Promise<PendingInvitation[]> {
  return withSystemScope(db, (trx) =>
    trx
      .selectFrom('tenant_invitations')
      .innerJoin('tenants', 'tenants.id', 'tenant_invitations.tenant_id')
      .select([
        'tenant_invitations.id as invitationId',
        'tenants.id as tenantId',
        'tenants.slug',
        'tenants.name',
        'tenant_invitations.role',
        'tenant_invitations.created_at as invitedAt',
      ])
      .where('tenant_invitations.email', '=', email.toLowerCase())
      .where('tenant_invitations.accepted_at', 'is', null)
      .orderBy('tenant_invitations.created_at', 'desc')
      .orderBy('tenant_invitations.id')
      .execute(),
  );
}

/**
 * Answering an invitation: the tenant of an invitation that is this user's own (pending and
 * addressed to their email, or accepted by them), else undefined, so someone else's
 * invitation id looks exactly like one that does not exist. The answer itself is then
 * checked again and written inside that tenant's scope.
 */
export async function findOwnInvitationTenant(
  db: Kysely<Database>,
  invitationId: string,
  user: { id: string; email: string },
): Promise<string | undefined> {
  const row = await withSystemScope(db, (trx) =>
    trx
      .selectFrom('tenant_invitations')
      .select('tenant_id')
      .where('id', '=', invitationId)
      .where((eb) =>
        eb.or([
          eb.and([eb('email', '=', user.email.toLowerCase()), eb('accepted_at', 'is', null)]),
          eb('accepted_by', '=', user.id),
        ]),
      )
      .executeTakeFirst(),
  );
  return row?.tenant_id;
}
