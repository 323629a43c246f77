import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate, type AppError } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { paginate, parsePageQuery } from '@crm/shared/pagination';
import { Router, type Request } from 'express';
import type { SelectExpression } from 'kysely';
import type { z } from 'zod';
import type { ReceiverContext } from '../receivers/receiver-context';
import { canManageIntegrations, idParam } from './admin-rules';
import {
  deleteTenantRow,
  tenantRows,
  type ConnectionTable,
  type RowOf,
  type RowQuery,
} from './tenant-resource.repository';

export type { ConnectionTable } from './tenant-resource.repository';

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
    const deleted = await withTenant(ctx.db, tenantId, (trx) =>
      deleteTenantRow(trx, resource.table, tenantId, id),
    );
    if (!deleted) throw errors.notFound(notFoundMessage);
    sendSuccess(res, { id }, { message: resource.removedMessage });
  });

  return router;
}
