import type { Trx } from '@crm/shared/db';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Kysely } from 'kysely';
import type { ReceiverResource, TimeRange } from './receiver-records.schema';

/**
 * The SQL of the receiver record lists and details. One resource table describes each list
 * (receiver-records.schema.ts), so the queries are built over a loosely typed view of the
 * transaction: table and column names come only from that table, never from a request.
 */
type Row = Record<string, unknown>;
const loose = (trx: Trx) => trx as unknown as Kysely<Record<string, Row>>;

/**
 * The sort keys of a resource's list: created_at (NOT NULL), on its
 * `(tenant_id, created_at, id)` index (migration 0022).
 */
const sortKeysOf = (resource: ReceiverResource): Record<string, SortKey> => ({
  created_at: { expression: sql.ref(`${resource.table}.created_at`), type: 'timestamptz' },
});

/**
 * A page of the tenant's rows of `resource`, filtered, in `created_at` order, by page or by
 * cursor (the shared keyset helper; a cursor is bound to the resource, its filters and range).
 */
export async function listReceiverRecords(
  trx: Trx,
  tenantId: string,
  resource: ReceiverResource,
  page: CursorPageQuery<string>,
  filters: Record<string, string | undefined>,
  range: TimeRange,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Row>> {
  const db = loose(trx);
  let query = db
    .selectFrom(resource.table)
    .select([...resource.listColumns])
    .where(`${resource.table}.tenant_id`, '=', tenantId);
  for (const [column, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (resource.messageFilters?.includes(column)) {
      const messages = db
        .selectFrom('email_messages')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where(column, '=', value);
      query = query.where('message_id', 'in', messages);
    } else {
      query = query.where(column, '=', value);
    }
  }
  if (range.from) query = query.where('created_at', '>=', range.from);
  if (range.to) query = query.where('created_at', '<', range.to);
  return paginateByKeyset(trx, query, page, {
    sortKeys: sortKeysOf(resource),
    tiebreak: `${resource.table}.id`,
    binding: listCursorBinding(binding.secret, resource.table, tenantId, {
      ...filters,
      from: range.from?.toISOString(),
      to: range.to?.toISOString(),
    }),
    filtered: Object.values(filters).some((v) => v !== undefined) || !!range.from || !!range.to,
  });
}

/** One row of `resource` with its stored provider body; undefined when the tenant has none. */
export async function findReceiverRecord(
  trx: Trx,
  tenantId: string,
  resource: ReceiverResource,
  id: string,
): Promise<Row | undefined> {
  return loose(trx)
    .selectFrom(resource.table)
    .select([...resource.listColumns, ...resource.detailColumns])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}
