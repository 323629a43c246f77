import type { Trx } from '@crm/shared/db';
import { paginate, type PageQuery } from '@crm/shared/pagination';
import type { InboundEventFilters } from './inbound-events.schema';

export const SORTABLE = ['received_at', 'processed_at', 'provider', 'outcome'] as const;
// The list leaves the raw payload out: it can be large, and it is the audit view's to show.
const COLUMNS = [
  'id',
  'provider',
  'delivery_id',
  'event_type',
  'content_type',
  'verification',
  'outcome',
  'detail',
  'attempts',
  'received_at',
  'processed_at',
] as const;

export function listInboundEvents(
  trx: Trx,
  tenantId: string,
  page: PageQuery<(typeof SORTABLE)[number]>,
  filters: InboundEventFilters,
) {
  let query = trx
    .selectFrom('inbound_events')
    .select([...COLUMNS])
    .where('tenant_id', '=', tenantId);
  if (filters.provider) query = query.where('provider', '=', filters.provider);
  if (filters.outcome) query = query.where('outcome', '=', filters.outcome);
  return paginate(query, page, 'id');
}

/** One ledger row with its raw payload (the audit view). */
export function findInboundEvent(trx: Trx, tenantId: string, id: string) {
  return trx
    .selectFrom('inbound_events')
    .select([...COLUMNS, 'raw_body'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}
