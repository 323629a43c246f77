import type { Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import type { EventEnvelope } from '@crm/shared/events';
import { sql } from 'kysely';
import type { EventFilters } from './events.schema';

const SORT_KEYS = {
  created_at: { expression: sql`event_outbox.created_at`, type: 'timestamptz' },
} satisfies Record<string, SortKey>;

/** A row's envelope, or its first one when the row is a batch (an array of envelopes). */
const FIRST_ENVELOPE = sql`(CASE WHEN json_typeof(event_outbox.envelope) = 'array'
  THEN event_outbox.envelope -> 0 ELSE event_outbox.envelope END)`;

/**
 * A page of the tenant's outbox rows, newest first by default, on `event_outbox_by_tenant`
 * (migration 0026). The relay's columns (seq, attempts, last_error, published_at) and the trace
 * context stay out: they are the platform's, not the tenant's.
 */
export function listEvents(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<'created_at'>,
  filters: EventFilters,
  binding: Pick<CursorBinding, 'secret'>,
) {
  let query = trx
    .selectFrom('event_outbox')
    .select([
      'event_outbox.id',
      'event_outbox.type',
      'event_outbox.event_count',
      sql<{ module: string; id: string }>`${FIRST_ENVELOPE} -> 'record'`.as('record'),
      sql<string>`${FIRST_ENVELOPE} ->> 'occurred_at'`.as('occurred_at'),
      'event_outbox.created_at',
      sql<Record<string, unknown>>`${FIRST_ENVELOPE} -> 'data'`.as('data'),
    ])
    .where('event_outbox.tenant_id', '=', tenantId);
  if (filters.type) query = query.where('event_outbox.type', '=', filters.type);
  return paginateByKeyset(trx, query, page, {
    sortKeys: SORT_KEYS,
    tiebreak: 'event_outbox.id',
    binding: listCursorBinding(binding.secret, 'event_outbox', tenantId, { ...filters }),
    filtered: Boolean(filters.type),
  });
}

/**
 * One of the tenant's events by the id the list shows (a batch row's: its first event), as the
 * bus delivered it to the engine (the envelope), or undefined when the tenant has no such row
 * (another tenant's, pruned, or never written). Reads the outbox's unique index on id.
 */
export async function findEvent(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<EventEnvelope | undefined> {
  const row = await trx
    .selectFrom('event_outbox')
    .select(sql<EventEnvelope>`${FIRST_ENVELOPE}`.as('envelope'))
    .where('event_outbox.tenant_id', '=', tenantId)
    .where('event_outbox.id', '=', id)
    .executeTakeFirst();
  return row?.envelope;
}
