import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate, type AppError } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router, type Request } from 'express';
import type { SelectExpression, Selection, SelectQueryBuilder } from 'kysely';
import type { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import { canManageIntegrations, idParam } from './admin-rules';

/** The connection tables under /api/integrations: rows of one tenant each, keyed by a uuid `id`. */
export type ConnectionTable =
  | 'network_accounts'
  | 'messaging_accounts'
  | 'telephony_numbers'
  | 'storefront_connections'
  | 'payment_connections';

/** A row of `T` as `columns` select it. */
type RowOf<T extends ConnectionTable, SE> = Selection<Database, T, SE>;
type RowQuery<T extends ConnectionTable, SE> = SelectQueryBuilder<Database, T, RowOf<T, SE>>;

/** POST /: the resource's own body and insert; the rest is the same for every resource. */
export interface ResourceCreate<Row, Input> {
  /** Names the body in a 400: `Invalid <what>: ...`. */
  what: string;
  schema: z.ZodType<Input>;
  /**
   * Inserts the tenant's row with ON CONFLICT DO NOTHING on its unique key and returns it as
   * the resource's columns; undefined when the key is already held.
   */
  insert: (trx: Trx, input: Input, tenantId: string) => Promise<Row | undefined>;
  /** The 409 for a key already held (alreadyConnected()). */
  conflict: (input: Input) => AppError;
  message: string;
}

export interface TenantResource<
  T extends ConnectionTable,
  SE extends SelectExpression<Database, T>,
  Input,
> {
  table: T;
  /** What the API shows of a row: list items, GET /:id and the created row. */
  columns: readonly SE[];
  /** Columns a client may sort by; lists default to newest first, so `created_at` is one. */
  sortable: readonly ['created_at', ...(keyof Database[T] & string)[]];
  /** The key one row is sent under: `{ data: { <rowKey>: row } }`. */
  rowKey: string;
  notFoundMessage: string;
  removedMessage: string;
  /** What the API adds to a row beyond its columns (e.g. its webhook URL). */
  present?: (row: RowOf<T, SE>) => unknown;
  /**
   * The list's own query-string filters. Run before the database is touched, so a bad filter
   * is a 400 like a bad page parameter; returns what narrows the list query.
   */
  listFilter?: (req: Request) => (rows: RowQuery<T, SE>) => RowQuery<T, SE>;
  create?: ResourceCreate<RowOf<T, SE>, Input>;
}

/**
 * The routes every integration resource shares: POST / (when `create` is given), the paginated
 * GET /, GET /:id and DELETE /:id, all inside withTenant(); writes are for owners and admins
 * (canManageIntegrations). The returned router is the resource's: it adds its other routes.
 */
export function tenantResourceRoutes<
  T extends ConnectionTable,
  SE extends SelectExpression<Database, T>,
  Input,
>(ctx: ReceiverContext, resource: TenantResource<T, SE, Input>): Router {
  const { rowKey, notFoundMessage, create, listFilter } = resource;
  const present = resource.present ?? ((row: RowOf<T, SE>) => row);
  const router = Router();

  if (create) {
    router.post('/', canManageIntegrations, jsonBody(ctx.bodyLimitBytes), async (req, res) => {
      const { tenantId } = identityOf(req);
      const input = validate(create.schema, req.body, create.what);
      const row = await withTenant(ctx.db, tenantId, (trx) => create.insert(trx, input, tenantId));
      if (!row) throw create.conflict(input);
      sendSuccess(res, { [rowKey]: present(row) }, { status: 201, message: create.message });
    });
  }

  router.get('/', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, {
      sortable: resource.sortable,
      defaultSortBy: 'created_at',
    });
    const narrow = listFilter?.(req);
    const result = await withTenant(ctx.db, tenantId, (trx) => {
      const rows = tenantRows(trx, resource, tenantId);
      return paginate(narrow ? narrow(rows) : rows, page, 'id');
    });
    res.json({ ...result, items: result.items.map(present) });
  });

  router.get('/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, notFoundMessage);
    const row = await withTenant(ctx.db, tenantId, (trx) =>
      tenantRows(trx, resource, tenantId, id).executeTakeFirst(),
    );
    if (!row) throw errors.notFound(notFoundMessage);
    sendSuccess(res, { [rowKey]: present(row) });
  });

  router.delete('/:id', canManageIntegrations, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = idParam(req, notFoundMessage);
    // Widened to the union, as in tenantRows(). Inside the tenant's RLS scope another
    // tenant's id simply matches nothing: a 404.
    const table: ConnectionTable = resource.table;
    const deleted = await withTenant(ctx.db, tenantId, (trx) =>
      trx
        .deleteFrom(table)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst(),
    );
    if (!deleted) throw errors.notFound(notFoundMessage);
    sendSuccess(res, { id }, { message: resource.removedMessage });
  });

  return router;
}

/** The tenant's rows of the resource's table (just row `id`, when given), its columns selected. */
function tenantRows<T extends ConnectionTable, SE extends SelectExpression<Database, T>>(
  trx: Trx,
  { table, columns }: { table: T; columns: readonly SE[] },
  tenantId: string,
  id?: string,
): RowQuery<T, SE> {
  // The filters are typed against the union, where Kysely knows every table's `tenant_id` and
  // `id`; it cannot resolve a column of a table that is still a type parameter.
  const union: ConnectionTable = table;
  let own = trx.selectFrom(union).where('tenant_id', '=', tenantId);
  if (id !== undefined) own = own.where('id', '=', id);
  // The one cast: back from the union to the caller's table T (which `table` is), so that
  // `columns` and the row type are checked against T's own columns.
  return (own as SelectQueryBuilder<Database, T, Record<never, never>>).select(columns);
}
