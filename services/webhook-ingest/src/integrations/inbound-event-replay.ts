import { withTenant } from '@crm/shared/db';
import { errors } from '@crm/shared/http';
import { z } from 'zod';
import type { Outcome, Recorded } from '../ledger/record-delivery';
import type { StoredDelivery } from '../ledger/stored-delivery';
import { replayPaymentDelivery } from '../providers/payments/payments.routes';
import { isPaymentProvider } from '../providers/payments/providers';
import { STOREFRONT_A_SCHEME } from '../providers/storefront-a/storefront-a.routes';
import { STOREFRONT_B_SCHEME } from '../providers/storefront-b/storefront-b.routes';
import { replayStorefrontDelivery } from '../providers/storefront-shared/storefront-receiver';
import type { ReceiverContext } from '../receivers/receiver-context';
import { findDeliveryConnection } from './inbound-events.repository';

const STOREFRONT_SCHEMES = { storefront_a: STOREFRONT_A_SCHEME, storefront_b: STOREFRONT_B_SCHEME };
const PAYMENTS_PREFIX = 'payments_';
const uuid = z.uuid();

/** Ledger providers whose deliveries a tenant may re-process (docs/integrations.md). */
export function isReplayable(provider: string): boolean {
  return (
    provider in STOREFRONT_SCHEMES ||
    (provider.startsWith(PAYMENTS_PREFIX) &&
      isPaymentProvider(provider.slice(PAYMENTS_PREFIX.length)))
  );
}

/**
 * Re-processes the tenant's stored delivery through its receiver's own handling, skipping only
 * the signature check its verification already passed. Offered for the storefront and payment
 * deliveries: their ledger key starts with the tenant's own connection, so a re-processing
 * provably writes into the connection and tenant the provider's signature was checked for.
 * (The shared-secret receivers route each delivery across tenants by its content; they are
 * re-processed by the provider's own retry.) Conflicts are 409s that write nothing.
 */
export async function replayDelivery(
  ctx: ReceiverContext,
  tenantId: string,
  stored: StoredDelivery,
): Promise<Recorded<Outcome>> {
  if (!isReplayable(stored.provider)) {
    throw errors.conflict(
      `Re-processing is offered for storefront and payment deliveries; a ${stored.provider} delivery is re-processed by the provider's own retry`,
      { provider: stored.provider },
    );
  }
  const connectionId = stored.delivery_id.split(':', 1)[0];
  const table =
    stored.provider in STOREFRONT_SCHEMES ? 'storefront_connections' : 'payment_connections';
  const connection = uuid.safeParse(connectionId).success
    ? await withTenant(ctx.db, tenantId, (trx) =>
        findDeliveryConnection(trx, tenantId, table, connectionId),
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
