import { writeEvent } from '@crm/shared/events';
import { PermanentFailure, type DeliveryScope, type Outcome } from '../../ledger/record-delivery';
import { findTelephonyNumbers } from '../../tenancy/cross-tenant-lookups';
import { proveClaim } from '../../tenancy/identifier-proofs';
import { claimedIdentifiers } from '../../tenancy/identifier-proofs.repository';
import { ownNumberFirst, type CallUpdate } from './call-params';
import { upsertCallLog } from './telephony.repository';

/**
 * Stores a verified status callback: the call log of (tenant, CallSid) is created or replaced
 * by this delivery's values. Last delivery wins: providers send a call's statuses in order
 * and each carries the whole call, so no status ranking is attempted. One event per delivery
 * that created or changed the call log: `call.completed` when the call ended normally,
 * `call.status_changed` for every other status. A delivery that changes none of the call's
 * fields (the same status, duration, direction and numbers) writes nothing and emits nothing.
 * A value the call log cannot hold stores nothing at all (PermanentFailure).
 *
 * Only a proven claim on a number is routed; a callback for numbers claimed but not proven is
 * held (no tenant). A callback signed for a claim's verification URL (`proofToken`: the URL is
 * signed with the parameters) proves that claim first.
 */
export async function handleCallDelivery(
  scope: DeliveryScope,
  call: CallUpdate | undefined,
  payload: Record<string, string | string[]>,
  proofToken?: string,
): Promise<Outcome> {
  if (!call) return { outcome: 'ignored', detail: 'no CallSid or CallStatus' };
  const candidates = ownNumberFirst(call);
  // Only the number whose own callback this is (the called one, or the calling one of an
  // outbound call) can be proven: the other side's caller id is the caller's to choose.
  if (proofToken && candidates.length > 0) {
    await proveClaim(scope.trx, 'telephony_numbers', [candidates[0]], proofToken);
  }
  const owners = await findTelephonyNumbers(scope.trx, candidates);
  const ownNumber = candidates.find((number) => owners.has(number));
  const owner = ownNumber === undefined ? undefined : owners.get(ownNumber);
  if (!owner) {
    const claimed = await claimedIdentifiers(scope.trx, 'telephony_numbers', candidates);
    return claimed.size > 0
      ? { outcome: 'held', detail: 'held: the number is claimed, and no claim is proven' }
      : { outcome: 'unmatched', detail: 'neither number belongs to a tenant' };
  }
  scope.routeTo([owner.tenantId]);
  if (call.unstorable) throw new PermanentFailure(call.unstorable, owner.tenantId);

  const changed = await scope.asTenant(owner.tenantId, async (trx) => {
    const logId = await upsertCallLog(trx, owner, call, payload);
    if (!logId) return false;
    await writeEvent(trx, {
      type: call.status === 'completed' ? 'call.completed' : 'call.status_changed',
      tenant_id: owner.tenantId,
      record: { module: 'call_logs', id: logId },
      data: {
        call_id: call.callSid,
        status: call.status,
        direction: call.direction,
        from: call.from,
        to: call.to,
        duration_seconds: call.durationSeconds,
      },
    });
    return true;
  });
  return changed
    ? { outcome: 'processed', tenantId: owner.tenantId, detail: `call ${call.status}` }
    : { outcome: 'ignored', tenantId: owner.tenantId, detail: `call ${call.status} unchanged` };
}
