import {
  dealCreatedEvent,
  dealInputSchema,
  dealUpdatedEvent,
  insertDeals,
  updateDealsById,
  type DealRow,
} from '@crm/records';
import { sourceRef, type MappedEntity } from './mapped-writer';

/**
 * A migrated deal: the API's deal fields, except that it points at its lead and contact by
 * their ids in the source system (records migrated from the same source before), and has no
 * owner (users are not migrated).
 */
export const migratedDealSchema = dealInputSchema
  .omit({ assigned_to: true, lead_id: true, contact_id: true })
  .extend({
    lead_external_id: sourceRef('lead_external_id'),
    contact_external_id: sourceRef('contact_external_id'),
  });

export const MIGRATED_DEALS: MappedEntity<
  DealRow,
  Awaited<ReturnType<typeof insertDeals>>[number]
> = {
  entity: 'deals',
  schema: migratedDealSchema,
  references: [
    { field: 'lead_external_id', entity: 'leads', column: 'lead_id' },
    { field: 'contact_external_id', entity: 'contacts', column: 'contact_id' },
  ],
  update: (trx, tenantId, rows) =>
    updateDealsById(
      trx,
      tenantId,
      rows.map(({ id, row }) => ({ id, deal: row })),
    ),
  insert: insertDeals,
  createdEvent: dealCreatedEvent,
  updatedEvent: dealUpdatedEvent,
};
