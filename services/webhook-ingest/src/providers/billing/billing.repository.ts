/**
 * The billing receiver's SQL: a tenant's `billing_subscriptions`, read and written under the
 * tenant's row-level security (the delivery's asTenant scope). Finding the tenant and setting
 * its plan happen before and after, in the system scope (tenancy/cross-tenant-lookups.ts).
 */
import type { Trx } from '@crm/shared/db';
import type { SubscriptionChange } from './subscription-change';

export type StoredSubscription = {
  id: string;
  status: string;
  plan: string | null;
  current_period_end: Date | null;
};

const STORED = ['id', 'status', 'plan', 'current_period_end'] as const;

/**
 * Update-then-insert under the tenant's row-level security rather than one INSERT ... ON
 * CONFLICT DO UPDATE: a subscription id recorded for another tenant is then simply not found
 * (undefined) instead of an RLS error. The second update covers a concurrent first insert of
 * the same subscription, which the DO NOTHING waited for. Fields the event does not carry
 * keep their stored values.
 */
export async function upsertSubscription(
  trx: Trx,
  tenantId: string,
  change: SubscriptionChange,
): Promise<StoredSubscription | undefined> {
  const known = {
    ...(change.customerId ? { provider_customer_id: change.customerId } : {}),
    ...(change.plan ? { plan: change.plan } : {}),
    ...(change.currentPeriodEnd ? { current_period_end: change.currentPeriodEnd } : {}),
  };
  const update = () =>
    trx
      .updateTable('billing_subscriptions')
      .set({ ...known, status: change.status, updated_at: new Date() })
      .where('tenant_id', '=', tenantId)
      .where('provider_subscription_id', '=', change.subscriptionId)
      .returning(STORED)
      .executeTakeFirst();
  return (
    (await update()) ??
    (await trx
      .insertInto('billing_subscriptions')
      .values({
        ...known,
        tenant_id: tenantId,
        provider_subscription_id: change.subscriptionId,
        status: change.status,
      })
      .onConflict((oc) => oc.column('provider_subscription_id').doNothing())
      .returning(STORED)
      .executeTakeFirst()) ??
    (await update())
  );
}

/**
 * The plan of the tenant's most recently updated subscription other than `except` whose
 * status is one of `statuses` and that names a plan; undefined when there is none.
 */
export async function latestOtherPlan(
  trx: Trx,
  tenantId: string,
  { except, statuses }: { except: string; statuses: readonly string[] },
): Promise<string | undefined> {
  const other = await trx
    .selectFrom('billing_subscriptions')
    .select('plan')
    .where('tenant_id', '=', tenantId)
    .where('id', '!=', except)
    .where('status', 'in', statuses)
    .where('plan', 'is not', null)
    .orderBy('updated_at', 'desc')
    .executeTakeFirst();
  return other?.plan ?? undefined;
}
