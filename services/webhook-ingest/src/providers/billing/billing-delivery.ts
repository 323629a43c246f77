import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findBillingTenant, setTenantPlan } from '../../tenancy/cross-tenant-lookups';
import type { SubscriptionChange } from './subscription-change';

export const SUBSCRIPTION_UPDATED_EVENT = 'billing.subscription_updated';
/** The plan of a tenant with no live subscription. */
export const FREE_PLAN = 'free';
const LIVE_STATUSES = ['active', 'trialing'];

/**
 * Applies one subscription change: the tenant's `billing_subscriptions` record (upserted by
 * the provider's subscription id), the tenant's plan, and a `billing.subscription_updated`
 * event, all in the delivery's transaction. An event no tenant can be found for is
 * acknowledged as `unmatched` so the provider does not retry it forever.
 */
export async function handleSubscriptionChange(
  scope: DeliveryScope,
  change: SubscriptionChange,
  eventType: string,
): Promise<Outcome> {
  const { trx, asTenant } = scope;
  const tenantId = await findBillingTenant(trx, {
    metadataTenantId: change.tenantHint ?? undefined,
    customerId: change.customerId ?? undefined,
  });
  if (!tenantId) {
    return { outcome: 'unmatched', detail: `No tenant for subscription ${change.subscriptionId}` };
  }
  scope.routeTo([tenantId]);
  const stored = await asTenant(tenantId, async (tenantTrx) => {
    const record = await upsertSubscription(tenantTrx, tenantId, change);
    if (!record) return undefined;
    const plan = await tenantPlanAfter(tenantTrx, tenantId, record, change);
    await writeEvent(tenantTrx, {
      type: SUBSCRIPTION_UPDATED_EVENT,
      tenant_id: tenantId,
      record: { module: 'billing', id: record.id },
      data: {
        event_type: eventType,
        provider_subscription_id: change.subscriptionId,
        status: record.status,
        plan: record.plan,
        current_period_end: record.current_period_end?.toISOString() ?? null,
        tenant_plan: plan ?? null,
      },
    });
    return { plan };
  });
  if (!stored) {
    return {
      outcome: 'unmatched',
      detail: `Subscription ${change.subscriptionId} is recorded for another tenant`,
    };
  }
  // The plan lives on `tenants`, which only the system role may write (setTenantPlan).
  if (stored.plan) await setTenantPlan(trx, tenantId, stored.plan);
  return {
    outcome: 'processed',
    tenantId,
    detail: `Subscription ${change.subscriptionId}: ${change.status}${stored.plan ? `, plan ${stored.plan}` : ''}`,
  };
}

type StoredSubscription = {
  id: string;
  status: string;
  plan: string | null;
  current_period_end: Date | null;
};

/**
 * Update-then-insert under the tenant's row-level security rather than one INSERT ... ON
 * CONFLICT DO UPDATE: a subscription id recorded for another tenant is then simply not found
 * (undefined) instead of an RLS error. The second update covers a concurrent first insert of
 * the same subscription, which the DO NOTHING waited for. Fields the event does not carry
 * keep their stored values.
 */
async function upsertSubscription(
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
      .returning(['id', 'status', 'plan', 'current_period_end'])
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
      .returning(['id', 'status', 'plan', 'current_period_end'])
      .executeTakeFirst()) ??
    (await update())
  );
}

/**
 * The tenant's plan after this change, or undefined to leave it as it is: a live subscription
 * grants its plan; an ended one falls back to another live subscription's plan, else 'free';
 * other states (past_due, unpaid, incomplete, paused) do not change the plan by themselves.
 */
async function tenantPlanAfter(
  trx: Trx,
  tenantId: string,
  record: StoredSubscription,
  change: SubscriptionChange,
): Promise<string | undefined> {
  if (!change.ended) {
    return LIVE_STATUSES.includes(record.status) ? (record.plan ?? undefined) : undefined;
  }
  const other = await trx
    .selectFrom('billing_subscriptions')
    .select('plan')
    .where('tenant_id', '=', tenantId)
    .where('id', '!=', record.id)
    .where('status', 'in', LIVE_STATUSES)
    .where('plan', 'is not', null)
    .orderBy('updated_at', 'desc')
    .executeTakeFirst();
  return other?.plan ?? FREE_PLAN;
}
