import { asTenant, withSystemScope, type Database, type Trx } from '@crm/shared/db';
import { sql, type Kysely } from 'kysely';
import type { Settled } from './group-commit';
import {
  claimSql,
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
    const ledgerIds = await claimAll(
      trx,
      [...firsts.values()].map((i) => deliveries[i]),
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
    await recordOutcomes(trx, [...recorded.values()]);
    return deliveries.map((_, i) => ({ value: recorded.get(i) ?? { duplicate: true } }));
  });
}

/** Claims each delivery as claimSql does; returns delivery id -> ledger id of the claimed. */
async function claimAll(trx: Trx, deliveries: Delivery[]): Promise<Map<string, string>> {
  const rows = await claimSql(trx, deliveries).returning(['id', 'delivery_id']).execute();
  return new Map(rows.map((row) => [row.delivery_id, row.id]));
}

async function recordOutcomes<T extends Outcome>(trx: Trx, recorded: Recorded<T>[]): Promise<void> {
  const rows = recorded.flatMap((entry) =>
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
  if (rows.length === 0) return;
  await sql`
    UPDATE inbound_events AS e
       SET outcome = v.outcome, tenant_id = v.tenant_id, detail = v.detail,
           processed_at = clock_timestamp()
      FROM json_to_recordset(${JSON.stringify(rows)}::json)
           AS v(id uuid, outcome text, tenant_id uuid, detail text)
     WHERE e.id = v.id`.execute(trx);
}
