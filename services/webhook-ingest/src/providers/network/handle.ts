import type { Trx } from '@crm/shared/db';
import { writeEvents } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findNetworkAccounts } from '../../tenancy/cross-tenant-lookups';
import type { ClassifiedBatch, NetworkActivity } from './batch';

/** SPEC.md (Limits): network events are inserted in statements of at most 500 rows. */
export const INSERT_BATCH_ROWS = 500;

/** The response's counts (SPEC.md: `{ ok, inserted, unmatched, unsupported }`). */
export interface NetworkCounts {
  inserted: number;
  unmatched: number;
  unsupported: number;
}

export type NetworkOutcome = Outcome & { counts: NetworkCounts };

interface MatchedActivity extends NetworkActivity {
  accountId: string;
}

/**
 * Stores a verified delivery's supported events (SPEC.md, Inbound network events): one lookup
 * resolves every account of the batch; events of unknown accounts are dropped and counted
 * unmatched; the rest are inserted under their own tenant (a batch may span tenants), an
 * event already stored for the account (same partner id) is skipped and not counted, and each
 * inserted row gets one `network.activity` event.
 */
export async function handleNetworkBatch(
  { trx, asTenant }: DeliveryScope,
  batch: ClassifiedBatch,
): Promise<NetworkOutcome> {
  const accounts = await findNetworkAccounts(
    trx,
    batch.activities.map((activity) => activity.externalAccountId),
  );
  const byTenant = new Map<string, MatchedActivity[]>();
  let unmatched = batch.withoutAccount;
  let matched = 0;
  for (const activity of batch.activities) {
    const account = accounts.get(activity.externalAccountId);
    if (!account) {
      unmatched += 1;
      continue;
    }
    matched += 1;
    const list = byTenant.get(account.tenantId) ?? [];
    list.push({ ...activity, accountId: account.accountId });
    byTenant.set(account.tenantId, list);
  }

  let inserted = 0;
  for (const [tenantId, activities] of byTenant) {
    inserted += await asTenant(tenantId, (tenantTrx) =>
      insertActivities(tenantTrx, tenantId, activities),
    );
  }

  const counts = { inserted, unmatched, unsupported: batch.unsupported };
  return {
    counts,
    outcome: inserted > 0 ? 'processed' : matched === 0 && unmatched > 0 ? 'unmatched' : 'ignored',
    // The ledger row belongs to a tenant only when the whole delivery did.
    tenantId: byTenant.size === 1 ? [...byTenant.keys()][0] : null,
    detail:
      `inserted ${inserted}, unmatched ${unmatched}, unsupported ${batch.unsupported}` +
      (matched > inserted ? `, already stored ${matched - inserted}` : ''),
  };
}

/** Inserts one tenant's activities, at most INSERT_BATCH_ROWS per statement; returns rows inserted. */
async function insertActivities(
  trx: Trx,
  tenantId: string,
  activities: MatchedActivity[],
): Promise<number> {
  const externalAccountIds = new Map(activities.map((a) => [a.accountId, a.externalAccountId]));
  const stored = [];
  for (let start = 0; start < activities.length; start += INSERT_BATCH_ROWS) {
    const rows = await trx
      .insertInto('network_events')
      .values(
        activities.slice(start, start + INSERT_BATCH_ROWS).map((activity) => ({
          tenant_id: tenantId,
          account_id: activity.accountId,
          external_event_id: activity.externalEventId,
          kind: activity.kind,
          event_type: activity.eventType,
          actor: activity.actor,
          occurred_at: activity.occurredAt,
          payload: activity.payload,
        })),
      )
      // A redelivered event (same partner id for the account) is skipped, also within a batch.
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'external_event_id'])
          .where('external_event_id', 'is not', null)
          .doNothing(),
      )
      .returning(['id', 'account_id', 'external_event_id', 'kind', 'event_type', 'occurred_at'])
      .execute();
    stored.push(...rows);
  }
  await writeEvents(
    trx,
    stored.map((row) => ({
      type: 'network.activity',
      tenant_id: tenantId,
      record: { module: 'network', id: row.id },
      data: {
        network_event_id: row.id,
        account_id: row.account_id,
        external_account_id: externalAccountIds.get(row.account_id),
        external_event_id: row.external_event_id,
        kind: row.kind,
        event_type: row.event_type,
        occurred_at: row.occurred_at ? new Date(row.occurred_at).toISOString() : null,
      },
    })),
  );
  return stored.length;
}
