import type { Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPageQuery,
  type SortKey,
  type TimeRange,
} from '@crm/shared/pagination';
import { sql } from 'kysely';
import type { InboundEventFilters } from './inbound-events.schema';

/**
 * The ledger lists newest first by `received_at`, on `(tenant_id, received_at, id)` (migration
 * 0023). Sorting by processed_at, provider or outcome is withdrawn rather than indexed: every
 * delivery writes a ledger row, and each index would cost every delivery its upkeep for a sort
 * of an audit view; `provider` and `outcome` remain filters.
 */
export const SORTABLE = ['received_at'] as const;
const SORT_KEYS = {
  received_at: { expression: sql`inbound_events.received_at`, type: 'timestamptz' },
} satisfies Record<(typeof SORTABLE)[number], SortKey>;
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

/** A page of the tenant's ledger rows, by page or by cursor (the shared keyset helper). */
export function listInboundEvents(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<(typeof SORTABLE)[number]>,
  filters: InboundEventFilters,
  range: TimeRange,
  binding: Pick<CursorBinding, 'secret'>,
) {
  let query = trx
    .selectFrom('inbound_events')
    .select([...COLUMNS])
    .where('inbound_events.tenant_id', '=', tenantId);
  if (filters.provider) query = query.where('provider', '=', filters.provider);
  if (filters.outcome) query = query.where('outcome', '=', filters.outcome);
  // A range of the (tenant_id, received_at, id) index the list reads anyway.
  if (range.from) query = query.where('received_at', '>=', range.from);
  if (range.to) query = query.where('received_at', '<', range.to);
  return paginateByKeyset(trx, query, page, {
    sortKeys: SORT_KEYS,
    tiebreak: 'inbound_events.id',
    binding: listCursorBinding(binding.secret, 'inbound_events', tenantId, {
      ...filters,
      from: range.from?.toISOString(),
      to: range.to?.toISOString(),
    }),
    filtered: Boolean(filters.provider || filters.outcome || range.from || range.to),
  });
}

/**
 * One of the tenant's ledger rows (under its row-level security), with the payload it kept
 * itself if it was recorded before inbound_event_payloads (`raw_body` and `headers`, null for
 * later rows and once retention stripped them): the audit view reads the payload by its key
 * next (findInboundEventPayload).
 */
export function findInboundEvent(trx: Trx, tenantId: string, id: string) {
  return (
    trx
      .selectFrom('inbound_events')
      .select([...COLUMNS, 'raw_body', 'headers'])
      // The payload's key exactly: a Date would drop received_at's microseconds.
      .select(sql<string>`received_at::text`.as('payload_key'))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst()
  );
}

/**
 * The payload of the ledger row `ledgerId` received at `payloadKey` (its received_at as
 * findInboundEvent read it: one partition's primary key), in the system scope: the payload
 * table has no tenant column, so it is read only by the key of a row the tenant has just read
 * under its own row-level security. Undefined once retention dropped its week (or for a row
 * recorded before the table).
 */
export function findInboundEventPayload(trx: Trx, ledgerId: string, payloadKey: string) {
  return trx
    .selectFrom('inbound_event_payloads')
    .select(['raw_body', 'headers'])
    .where('ledger_id', '=', ledgerId)
    .where('received_at', '=', sql<Date>`${payloadKey}::timestamptz`)
    .executeTakeFirst();
}
