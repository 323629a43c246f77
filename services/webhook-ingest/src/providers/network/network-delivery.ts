import type { Trx } from '@crm/shared/db';
import { writeEvents } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findNetworkAccounts } from '../../tenancy/cross-tenant-lookups';
import { proveClaim } from '../../tenancy/identifier-proofs';
import { claimedIdentifiers } from '../../tenancy/identifier-proofs.repository';
import type { ClassifiedBatch } from './batch';
import {
  insertNetworkEvents,
  type AccountActivity,
  type StoredNetworkEvent,
} from './network.repository';

/** Specified: network events are inserted in statements of at most 500 rows. */
export const INSERT_BATCH_ROWS = 500;

/** The response's counts (`{ ok, inserted, unmatched, unsupported }`; `unmatched` is specified). */
export interface NetworkCounts {
  inserted: number;
  unmatched: number;
  unsupported: number;
}

export type NetworkOutcome = Outcome & { counts: NetworkCounts };

interface MatchedActivity extends AccountActivity {
  /** Which delivery of the group it came in. */
  delivery: number;
}

interface Tally {
  matched: number;
  unmatched: number;
  /** Of `unmatched`: events of accounts claimed but not proven. */
  held: number;
  inserted: number;
  tenants: Set<string>;
}

/**
 * Stores a verified delivery's supported events: one lookup
 * resolves every account of the batch; events of unknown accounts are dropped and counted
 * unmatched; the rest are inserted under their own tenant (a batch may span tenants), an
 * event already stored for the account (same partner id) is skipped and not counted, and each
 * inserted row gets one `network.activity` event. Only proven account claims are routed: events
 * of an account claimed but not proven are held (counted unmatched, stored nowhere); a delivery
 * sent to a claim's verification URL (`proofToken`) proves that claim first when it names the
 * claim's account.
 */
export async function handleNetworkBatch(
  scope: DeliveryScope,
  batch: ClassifiedBatch,
): Promise<NetworkOutcome> {
  const [outcome] = await handleNetworkBatches(scope, [batch]);
  return outcome;
}

/**
 * handleNetworkBatch for several deliveries in one transaction (group commit): one account
 * lookup, and per tenant one insert statement of up to INSERT_BATCH_ROWS rows and one outbox
 * statement, whatever the number of deliveries. Each delivery gets the outcome it would have
 * got alone, in arrival order (an event two deliveries share counts for the first).
 */
export async function handleNetworkBatches(
  scope: DeliveryScope,
  batches: ClassifiedBatch[],
): Promise<NetworkOutcome[]> {
  const { trx, asTenant } = scope;
  const accountIdsOf = (batch: ClassifiedBatch) =>
    batch.activities.map((activity) => activity.externalAccountId);
  for (const batch of batches) {
    if (batch.proofToken) {
      await proveClaim(trx, 'network_accounts', accountIdsOf(batch), batch.proofToken);
    }
  }
  const allAccountIds = batches.flatMap(accountIdsOf);
  const accounts = await findNetworkAccounts(trx, allAccountIds);
  const claimed = await claimedIdentifiers(
    trx,
    'network_accounts',
    allAccountIds.filter((id) => !accounts.has(id)),
  );
  const tallies: Tally[] = batches.map((batch) => ({
    matched: 0,
    unmatched: batch.withoutAccount,
    held: 0,
    inserted: 0,
    tenants: new Set(),
  }));
  const byTenant = new Map<string, MatchedActivity[]>();
  batches.forEach((batch, delivery) => {
    const tally = tallies[delivery];
    for (const activity of batch.activities) {
      const account = accounts.get(activity.externalAccountId);
      if (!account) {
        tally.unmatched += 1;
        if (claimed.has(activity.externalAccountId)) tally.held += 1;
        continue;
      }
      tally.matched += 1;
      tally.tenants.add(account.tenantId);
      const list = byTenant.get(account.tenantId) ?? [];
      list.push({ ...activity, accountId: account.accountId, delivery });
      byTenant.set(account.tenantId, list);
    }
  });
  // Routed before anything is written (a group scope ignores it: see DeliveryScope).
  for (const tally of tallies) scope.routeTo(tally.tenants);

  for (const [tenantId, activities] of byTenant) {
    const insertedFor = await asTenant(tenantId, (tenantTrx) =>
      insertActivities(tenantTrx, tenantId, activities),
    );
    for (const delivery of insertedFor) tallies[delivery].inserted += 1;
  }
  return batches.map((batch, delivery) => outcomeOf(batch, tallies[delivery]));
}

function outcomeOf(batch: ClassifiedBatch, tally: Tally): NetworkOutcome {
  const { inserted, unmatched, matched, held } = tally;
  return {
    // Held events count as unmatched in the answer: the sender learns nothing of claims.
    counts: { inserted, unmatched, unsupported: batch.unsupported },
    outcome:
      inserted > 0
        ? 'processed'
        : matched === 0 && held > 0
          ? 'held'
          : matched === 0 && unmatched > 0
            ? 'unmatched'
            : 'ignored',
    // The ledger row belongs to a tenant only when the whole delivery did.
    tenantId: tally.tenants.size === 1 ? [...tally.tenants][0] : null,
    detail:
      `inserted ${inserted}, unmatched ${unmatched}, unsupported ${batch.unsupported}` +
      (held > 0 ? `, held ${held}` : '') +
      (matched > inserted ? `, already stored ${matched - inserted}` : ''),
  };
}

/**
 * Inserts one tenant's activities, at most INSERT_BATCH_ROWS per statement, with their events;
 * returns, per inserted row, the delivery it came in. Each statement (insertNetworkEvents)
 * returns the inserted rows in the order they went in, skipping the ones already stored, which
 * is how each row is matched to its delivery (checked: a mismatch fails the transaction).
 */
async function insertActivities(
  trx: Trx,
  tenantId: string,
  activities: MatchedActivity[],
): Promise<number[]> {
  const externalAccountIds = new Map(activities.map((a) => [a.accountId, a.externalAccountId]));
  const stored: StoredNetworkEvent[] = [];
  const deliveries: number[] = [];
  for (let start = 0; start < activities.length; start += INSERT_BATCH_ROWS) {
    const chunk = activities.slice(start, start + INSERT_BATCH_ROWS);
    const rows = await insertNetworkEvents(trx, tenantId, chunk);
    let next = 0;
    for (const activity of chunk) {
      const row = rows[next];
      if (
        row?.account_id === activity.accountId &&
        row.external_event_id === activity.externalEventId
      ) {
        stored.push(row);
        deliveries.push(activity.delivery);
        next += 1;
      }
    }
    if (next !== rows.length) throw new Error('network_events rows came back out of order');
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
  return deliveries;
}
