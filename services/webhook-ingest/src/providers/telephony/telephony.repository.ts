/**
 * The telephony receiver's SQL: a tenant's `call_logs`, written under the tenant's row-level
 * security (the delivery's asTenant scope). The number's tenant is found before, in the system
 * scope (tenancy/cross-tenant-lookups.ts).
 */
import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';
import type { CallUpdate } from './call-params';

/**
 * Creates the call log of (tenant, CallSid) or replaces its values with this callback's; its
 * id, or undefined when the stored call already had every one of them (nothing written).
 */
export async function upsertCallLog(
  trx: Trx,
  { tenantId, numberId }: { tenantId: string; numberId: string },
  call: CallUpdate,
  payload: Record<string, string | string[]>,
): Promise<string | undefined> {
  const values = {
    number_id: numberId,
    status: call.status,
    direction: call.direction,
    from_number: call.from,
    to_number: call.to,
    duration_seconds: call.durationSeconds,
    payload: JSON.stringify(payload),
  };
  const log = await trx
    .insertInto('call_logs')
    .values({ tenant_id: tenantId, call_id: call.callSid, ...values })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'call_id'])
        .doUpdateSet({ ...values, updated_at: sql`now()` })
        // The callback's own fields (Timestamp, SequenceNumber) differ on every delivery;
        // only a change to the call itself is one.
        .where(
          sql<boolean>`(call_logs.number_id, call_logs.status, call_logs.direction,
            call_logs.from_number, call_logs.to_number, call_logs.duration_seconds)
            IS DISTINCT FROM (excluded.number_id, excluded.status, excluded.direction,
            excluded.from_number, excluded.to_number, excluded.duration_seconds)`,
        ),
    )
    .returning('id')
    .executeTakeFirst();
  return log?.id;
}
