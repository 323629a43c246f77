import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findBillingTenant, setTenantPlan } from '../../tenancy/cross-tenant-lookups';
import { latestOtherPlan, upsertSubscription, type StoredSubscription } from './billing.repository';
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
  const other = await latestOtherPlan(trx, tenantId, {
    except: record.id,
    statuses: LIVE_STATUSES,
  });
  return other ?? FREE_PLAN;
}
