import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';

/**
 * Serialises every membership change of one tenant (a transaction-scoped advisory lock):
 * adding, changing and revoking by its managers, and an invitee's answer. Whatever is read
 * after it (the actor's role, the remaining owners, an invitation) cannot change before the
 * transaction ends.
 */
export async function lockTenantMembers(trx: Trx, tenantId: string): Promise<void> {
  const lockKey = `tenant-members:${tenantId}`;
  await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
}
