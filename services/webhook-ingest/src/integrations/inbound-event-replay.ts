import { withTenant } from '@crm/shared/db';
import { errors } from '@crm/shared/http';
import { NotRoutedToTenant, type Outcome, type Recorded } from '../ledger/record-delivery';
import type { StoredDelivery } from '../ledger/stored-delivery';
import { replayBillingDelivery } from '../providers/billing/billing.routes';
import { replayEmailDelivery } from '../providers/email/email.routes';
import { replayMessagingDelivery } from '../providers/messaging/messaging.routes';
import { replayNetworkDelivery } from '../providers/network/network.routes';
import { replayPaymentDelivery } from '../providers/payments/payments.routes';
import { isPaymentProvider } from '../providers/payments/providers';
import { STOREFRONT_A_SCHEME } from '../providers/storefront-a/storefront-a.routes';
import { STOREFRONT_B_SCHEME } from '../providers/storefront-b/storefront-b.routes';
import { replayStorefrontDelivery } from '../providers/storefront-shared/storefront-receiver';
import { replayTelephonyDelivery } from '../providers/telephony/telephony.routes';
import type { ReceiverContext } from '../receivers/receiver-context';
import { isUuid } from './admin-rules';
import { tenantRows } from './tenant-resource.repository';

const STOREFRONT_SCHEMES = { storefront_a: STOREFRONT_A_SCHEME, storefront_b: STOREFRONT_B_SCHEME };
const PAYMENTS_PREFIX = 'payments_';

type Replay = (
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
) => Promise<Recorded<Outcome>>;

/**
 * The shared-secret receivers: each delivery is routed to a tenant by its content, so each is
 * re-processed by routing it again, with today's owners, and refused unless that is still the
 * asking tenant alone. `routedBy` says what routes it, for that refusal (which never says
 * whether another tenant owns it: released and taken read the same).
 */
const CONTENT_ROUTED: Record<string, { replay: Replay; routedBy: string }> = {
  billing: { replay: replayBillingDelivery, routedBy: 'the subscription it is about is not' },
  email: { replay: replayEmailDelivery, routedBy: 'the email message it is about is not' },
  network: { replay: replayNetworkDelivery, routedBy: 'the partner accounts it names are not' },
  messaging: {
    replay: replayMessagingDelivery,
    routedBy: 'the business numbers it names are not',
  },
  telephony: { replay: replayTelephonyDelivery, routedBy: 'the number it is about is not' },
};

/** Ledger providers whose deliveries a tenant may re-process: every receiver's (docs/integrations.md). */
export function isReplayable(provider: string): boolean {
  return (
    Object.hasOwn(CONTENT_ROUTED, provider) ||
    Object.hasOwn(STOREFRONT_SCHEMES, provider) ||
    (provider.startsWith(PAYMENTS_PREFIX) &&
      isPaymentProvider(provider.slice(PAYMENTS_PREFIX.length)))
  );
}

/**
 * Re-processes the tenant's stored delivery through its receiver's own handling, skipping only
 * the signature check its verification already passed. A storefront or payment delivery's
 * ledger key starts with the tenant's own connection, so it is re-processed for that
 * connection while the tenant still has it. A shared-secret receiver's delivery is routed by
 * its content again, with today's owners: it writes only when that routes it to this tenant
 * alone (the ledger's re-processing check, Delivery.reprocessedFor), so it never writes into
 * another tenant. Refusals are 409s that write nothing.
 */
export async function replayDelivery(
  ctx: ReceiverContext,
  tenantId: string,
  stored: StoredDelivery,
): Promise<Recorded<Outcome>> {
  if (!isReplayable(stored.provider)) {
    throw errors.conflict(
      `Re-processing is offered for the deliveries of this platform's receivers; no receiver handles ${stored.provider} deliveries`,
      { provider: stored.provider },
    );
  }
  const contentRouted = Object.hasOwn(CONTENT_ROUTED, stored.provider)
    ? CONTENT_ROUTED[stored.provider]
    : undefined;
  const routedBy = contentRouted?.routedBy ?? 'the connection it came through is not';
  const replay = contentRouted?.replay ?? replayConnectionDelivery;
  return replay(ctx, stored, tenantId).catch((error: unknown) => {
    if (!(error instanceof NotRoutedToTenant)) throw error;
    throw errors.conflict(
      `The delivery no longer routes to this workspace: ${routedBy} this workspace's now. Nothing was written`,
      { provider: stored.provider },
    );
  });
}

/** A storefront or payment delivery, for the connection its ledger key starts with. */
async function replayConnectionDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
): Promise<Recorded<Outcome>> {
  const connectionId = stored.delivery_id.split(':', 1)[0];
  const table =
    stored.provider in STOREFRONT_SCHEMES ? 'storefront_connections' : 'payment_connections';
  // The tenant's own connection only: another tenant's id finds nothing under its RLS scope.
  const connection = isUuid(connectionId)
    ? await withTenant(ctx.db, tenantId, (trx) =>
        tenantRows(trx, { table, columns: ['id'] }, tenantId, connectionId).executeTakeFirst(),
      )
    : undefined;
  if (!connection) {
    throw errors.conflict(
      'The connection this delivery came through has been deleted: it cannot be re-processed',
    );
  }
  const ref = { tenantId, connectionId };
  if (stored.provider === 'storefront_a' || stored.provider === 'storefront_b') {
    return replayStorefrontDelivery(ctx, STOREFRONT_SCHEMES[stored.provider], stored, ref);
  }
  const provider = stored.provider.slice(PAYMENTS_PREFIX.length);
  if (!isPaymentProvider(provider)) throw new Error(`not a payment provider: ${provider}`);
  return replayPaymentDelivery(ctx, stored, { ...ref, provider });
}
