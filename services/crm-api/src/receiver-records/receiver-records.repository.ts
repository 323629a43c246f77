import type { Trx } from '@crm/shared/db';
import { paginate, type Page, type PageQuery } from '@crm/shared/pagination';
import type { Kysely } from 'kysely';
import type { ReceiverResource, TimeRange } from './receiver-records.schema';

/**
 * The SQL of the receiver record lists and details. One resource table describes each list
 * (receiver-records.schema.ts), so the queries are built over a loosely typed view of the
 * transaction: table and column names come only from that table, never from a request.
 */
type Row = Record<string, unknown>;
const loose = (trx: Trx) => trx as unknown as Kysely<Record<string, Row>>;

/** A page of the tenant's rows of `resource`, filtered, in `created_at` order. */
export async function listReceiverRecords(
  trx: Trx,
  tenantId: string,
  resource: ReceiverResource,
  page: PageQuery<string>,
  filters: Record<string, string | undefined>,
  range: TimeRange,
): Promise<Page<Row>> {
  const db = loose(trx);
  let query = db
    .selectFrom(resource.table)
    .select([...resource.listColumns])
    .where('tenant_id', '=', tenantId);
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
  return paginate(query, page, 'id');
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
