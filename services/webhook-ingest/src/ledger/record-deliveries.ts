import { asTenant, withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';
import type { Settled } from './group-commit';
import { claimDeliveries, recordOutcomes } from './ledger.repository';
import {
  ledgerValues,
  MAX_DETAIL,
  recordDelivery,
  type Delivery,
  type DeliveryScope,
  type Outcome,
  type Recorded,
} from './record-delivery';

/**
 * recordDelivery for a group of deliveries of one provider in one transaction (group commit):
 * one statement claims them all, `handleGroup` handles the claimed ones together, one
 * statement records every outcome. The answers are what recordDelivery would have given each
 * delivery arriving alone, one after another: an id already recorded, or repeated within the
 * group, is a duplicate. When the group's transaction fails for any reason, nothing of it is
 * kept and every delivery is recorded on its own instead (`handleOne`), so one delivery's
 * failure (a value out of range, say) is its alone and never fails the others.
 */
export async function recordDeliveries<T extends Outcome>(
  db: Kysely<Database>,
  deliveries: Delivery[],
  handleGroup: (scope: DeliveryScope, indexes: number[]) => Promise<T[]>,
  handleOne: (scope: DeliveryScope, index: number) => Promise<T>,
): Promise<Settled<Recorded<T>>[]> {
  if (deliveries.length > 1) {
    try {
      return await recordTogether(db, deliveries, handleGroup);
    } catch {
      // Fall through: each on its own, in arrival order (a repeat then finds the first).
    }
  }
  const answers: Settled<Recorded<T>>[] = [];
  for (const [index, delivery] of deliveries.entries()) {
    try {
      answers.push({ value: await recordDelivery(db, delivery, (s) => handleOne(s, index)) });
    } catch (error) {
      answers.push({ error });
    }
  }
  return answers;
}

async function recordTogether<T extends Outcome>(
  db: Kysely<Database>,
  deliveries: Delivery[],
  handleGroup: (scope: DeliveryScope, indexes: number[]) => Promise<T[]>,
): Promise<Settled<Recorded<T>>[]> {
  const firsts = new Map<string, number>();
  deliveries.forEach((delivery, i) => {
    if (!firsts.has(delivery.deliveryId)) firsts.set(delivery.deliveryId, i);
  });
  return withSystemScope(db, async (trx) => {
    const ledgerIds = await claimDeliveries(
      trx,
      [...firsts.values()].map((i) => ledgerValues(deliveries[i], 'failed')),
    );
    const claimed = [...firsts.values()].filter((i) => ledgerIds.has(deliveries[i].deliveryId));
    const outcomes =
      claimed.length === 0
        ? []
        : await handleGroup(
            {
              trx,
              asTenant: (id, fn) => asTenant(trx, id, fn),
              // One scope for many deliveries: a failure is recorded delivery by delivery.
              routeTo: () => undefined,
            },
            claimed,
          );
    const recorded = new Map<number, Recorded<T>>(
      claimed.map((i, k) => [
        i,
        {
          duplicate: false,
          ledgerId: ledgerIds.get(deliveries[i].deliveryId)!,
          result: outcomes[k],
        },
      ]),
    );
    const rows = ledgerOutcomes([...recorded.values()]);
    if (rows.length > 0) await recordOutcomes(trx, rows);
    return deliveries.map((_, i) => ({ value: recorded.get(i) ?? { duplicate: true } }));
  });
}

/** The ledger rows' outcomes of the claimed deliveries (one statement records them all). */
function ledgerOutcomes<T extends Outcome>(recorded: Recorded<T>[]) {
  return recorded.flatMap((entry) =>
    'result' in entry
      ? [
          {
            id: entry.ledgerId,
            outcome: entry.result.outcome,
            tenant_id: entry.result.tenantId ?? null,
            detail: entry.result.detail?.slice(0, MAX_DETAIL) ?? null,
          },
        ]
      : [],
  );
}
