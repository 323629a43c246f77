import { upsertContactFillingBlanks } from '@crm/records';
import { PermanentFailure, type DeliveryScope, type Outcome } from '../../ledger/record-delivery';
import { fitsNumeric } from '@crm/shared/inbound';
import { storeOrder, type StorefrontConnectionRef } from './store-order';
import type { StorefrontEvent } from './storefront-event';

/**
 * Stores one claimed storefront delivery in its connection's tenant (under row-level
 * security, in the ledger's transaction) and says what was done, for the ledger. The
 * detail names record ids only: no email or other personal data in the ledger's notes.
 */
export async function handleStorefrontEvent(
  scope: DeliveryScope,
  connection: StorefrontConnectionRef,
  event: StorefrontEvent,
): Promise<Outcome> {
  const tenantId = connection.tenantId;
  switch (event.kind) {
    case 'ignored':
      return { outcome: 'ignored', tenantId, detail: event.reason };
    case 'customer': {
      const customer = event.contact;
      // Contacts are keyed by email: one without cannot be matched to anything later.
      if (!customer) return { outcome: 'ignored', tenantId, detail: 'customer has no email' };
      const contact = await scope.asTenant(tenantId, (trx) =>
        upsertContactFillingBlanks(trx, tenantId, customer, connection.platform),
      );
      return {
        outcome: 'processed',
        tenantId,
        detail: `contact ${contact.id} ${contact.created ? 'created' : 'updated'}`,
      };
    }
    case 'order': {
      const { total } = event.order;
      // Checked before anything is written, the buyer's contact included.
      if (total !== null && !fitsNumeric(total, 16, 2)) {
        throw new PermanentFailure(
          `The order total ${total} does not fit commerce_orders.total numeric(16,2)`,
          tenantId,
        );
      }
      const order = await scope.asTenant(tenantId, (trx) =>
        storeOrder(trx, connection, event.order),
      );
      return {
        outcome: 'processed',
        tenantId,
        detail: `order ${order.id} ${order.created ? 'created' : order.changed ? 'updated' : 'unchanged'}`,
      };
    }
  }
}
