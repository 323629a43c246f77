import type { InboundVerification } from '@crm/shared/db';
import type { Delivery } from './record-delivery';

/**
 * A delivery as the ledger kept it, read back to be re-processed: its tenant's, verified, and
 * failed after verification. A re-processing claims it again under the same provider and
 * delivery id, exactly as the provider's retry would, so it is as idempotent as the original.
 */
export interface StoredDelivery {
  provider: string;
  delivery_id: string;
  event_type: string | null;
  content_type: string | null;
  raw_body: string;
  verification: InboundVerification;
}

/**
 * The Delivery that claims `stored` again for `tenantId` (no headers: the row keeps its own),
 * as a re-processing: it must still route to `tenantId` alone (Delivery.reprocessedFor).
 */
export function deliveryOf(stored: StoredDelivery, tenantId: string): Delivery {
  return {
    provider: stored.provider,
    deliveryId: stored.delivery_id,
    eventType: stored.event_type,
    rawBody: Buffer.from(stored.raw_body, 'utf8'),
    contentType: stored.content_type ?? undefined,
    verification: stored.verification,
    tenantId,
    reprocessedFor: tenantId,
  };
}
