import { MEMBERSHIP_STATUSES, withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf, requireRole, ROLES, type Role } from '@crm/shared/identity';
import { Router, type RequestHandler } from 'express';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { findUserIdByEmail } from '../tenancy/cross-tenant-lookups';

const addSchema = z.object({
  email: z.email({ message: 'must be an email address' }).max(320),
  role: z.enum(ROLES, { message: `must be one of: ${ROLES.join(', ')}` }),
});
const changeSchema = z
  .object({
    role: z.enum(ROLES, { message: `must be one of: ${ROLES.join(', ')}` }).optional(),
    status: z
      .enum(MEMBERSHIP_STATUSES, { message: `must be one of: ${MEMBERSHIP_STATUSES.join(', ')}` })
      .optional(),
  })
  .refine((v) => v.role !== undefined || v.status !== undefined, {
    message: 'give a role or a status',
  });
const userIdSchema = z.uuid({ message: 'must be a user id (uuid)' });

function listMembers(trx: Trx) {
  // Row-level security limits both tables to the scoped tenant.
  return trx
    .selectFrom('tenant_users')
    .innerJoin('users', 'users.id', 'tenant_users.user_id')
    .select([
      'users.id as userId',
      'users.email',
      'users.name',
      'tenant_users.role',
      'tenant_users.status',
      'tenant_users.joined_at as joinedAt',
    ])
    .orderBy('tenant_users.joined_at');
}

const MANAGERS: Role[] = ['owner', 'admin'];

/**
 * Serialises the membership changes of one tenant (a transaction-scoped advisory lock) and
 * re-reads the caller's own membership under it. The role checked before the transaction may
 * be stale by now: two owners demoting each other at the same moment would otherwise both
 * see the other as the remaining owner and leave the tenant without one.
 */
async function lockMembersAndReadActorRole(
  trx: Trx,
  tenantId: string,
  actorUserId: string,
): Promise<Role> {
  const lockKey = `tenant-members:${tenantId}`;
  await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
  const actor = await trx
    .selectFrom('tenant_users')
    .select('role')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', actorUserId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!actor || !MANAGERS.includes(actor.role)) {
    throw errors.forbidden(`This action needs one of the roles: ${MANAGERS.join(', ')}`);
  }
  return actor.role;
}

async function otherActiveOwners(trx: Trx, exceptUserId: string): Promise<number> {
  const row = await trx
    .selectFrom('tenant_users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .where('user_id', '!=', exceptUserId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * `/api/auth/members`: membership management of the selected tenant, for its owners and
 * admins (a member or viewer gets 403 `FORBIDDEN`). Only an owner may grant or change the
 * owner role, and a tenant always keeps at least one active owner.
 */
export function memberRoutes(
  db: Kysely<Database>,
  sessionChain: RequestHandler[],
  bodyLimitBytes: number,
): Router {
  const router = Router();
  router.use(...sessionChain, requireRole(...MANAGERS), jsonBody(bodyLimitBytes));

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const members = await withTenant(db, tenantId, (trx) =>
      listMembers(trx).where('tenant_users.tenant_id', '=', tenantId).execute(),
    );
    sendSuccess(res, { members });
  });

  router.post('/', async (req, res) => {
    const { tenantId, userId: actorUserId, role: checkedRole } = identityOf(req);
    const input = validate(addSchema, req.body, 'member');
    const ownerOnly = () => errors.forbidden('Only an owner may add an owner');
    if (input.role === 'owner' && checkedRole !== 'owner') throw ownerOnly();
    const userId = await findUserIdByEmail(db, input.email);
    if (!userId) throw errors.notFound('No account uses this email; the user must sign up first');
    const member = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      if (input.role === 'owner' && actorRole !== 'owner') throw ownerOnly();
      const inserted = await trx
        .insertInto('tenant_users')
        .values({ tenant_id: tenantId, user_id: userId, role: input.role, status: 'active' })
        .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doNothing())
        .returning('user_id')
        .executeTakeFirst();
      if (!inserted) throw errors.alreadyExists('This user is already a member of the tenant');
      return listMembers(trx)
        .where('tenant_users.tenant_id', '=', tenantId)
        .where('users.id', '=', userId)
        .executeTakeFirstOrThrow();
    });
    sendSuccess(res, { member }, { status: 201, message: 'Member added' });
  });

  router.patch('/:userId', async (req, res) => {
    const { tenantId, userId: actorUserId } = identityOf(req);
    const userId = validate(userIdSchema, req.params.userId, 'user id');
    const change = validate(changeSchema, req.body, 'member change');
    const member = await withTenant(db, tenantId, async (trx) => {
      const actorRole = await lockMembersAndReadActorRole(trx, tenantId, actorUserId);
      const current = await trx
        .selectFrom('tenant_users')
        .select(['role', 'status'])
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .forUpdate()
        .executeTakeFirst();
      if (!current) throw errors.notFound('No such member in this tenant');
      const touchesOwner = current.role === 'owner' || change.role === 'owner';
      if (touchesOwner && actorRole !== 'owner')
        throw errors.forbidden('Only an owner may change an owner or make one');
      const stopsBeingActiveOwner =
        current.role === 'owner' &&
        current.status === 'active' &&
        ((change.role ?? 'owner') !== 'owner' || (change.status ?? 'active') !== 'active');
      if (stopsBeingActiveOwner && (await otherActiveOwners(trx, userId)) === 0) {
        throw errors.conflict('A tenant must keep at least one active owner');
      }
      await trx
        .updateTable('tenant_users')
        .set({
          ...(change.role && { role: change.role }),
          ...(change.status && { status: change.status }),
        })
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .execute();
      return listMembers(trx)
        .where('tenant_users.tenant_id', '=', tenantId)
        .where('users.id', '=', userId)
        .executeTakeFirstOrThrow();
    });
    sendSuccess(res, { member }, { message: 'Member updated' });
  });

  return router;
}
