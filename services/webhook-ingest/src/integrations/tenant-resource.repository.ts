import type { Database, Trx } from '@crm/shared/db';
import type {
  SelectExpression,
  Selection,
  SelectQueryBuilder,
  UpdateQueryBuilder,
  UpdateResult,
} from 'kysely';

/** The connection tables under /api/integrations: rows of one tenant each, keyed by a uuid `id`. */
export type ConnectionTable =
  | 'network_accounts'
  | 'messaging_accounts'
  | 'telephony_numbers'
  | 'storefront_connections'
  | 'payment_connections';

/** The connection tables whose rows hold a display name and a sealed webhook secret. */
export type SecretConnectionTable = 'storefront_connections' | 'payment_connections';

/** A row of `T` as `columns` select it. */
export type RowOf<T extends ConnectionTable, SE> = Selection<Database, T, SE>;
export type RowQuery<T extends ConnectionTable, SE> = SelectQueryBuilder<Database, T, RowOf<T, SE>>;

/** The tenant's rows of the resource's table (just row `id`, when given), its columns selected. */
export function tenantRows<T extends ConnectionTable, SE extends SelectExpression<Database, T>>(
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

/**
 * Deletes the tenant's row `id` of `table`; the id deleted, or undefined when none matched.
 * Inside the tenant's RLS scope another tenant's id simply matches nothing.
 */
export function deleteTenantRow(trx: Trx, table: ConnectionTable, tenantId: string, id: string) {
  // Typed against the union, as in tenantRows().
  return trx
    .deleteFrom(table)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
}

/**
 * Changes what is given of the tenant's connection `id`: its name, its sealed webhook secret
 * (null clears a storefront connection's: a payment connection's column cannot hold null).
 * The connection as `columns` select it, or undefined when the tenant has none with this id.
 */
export function updateConnection<
  T extends SecretConnectionTable,
  SE extends SelectExpression<Database, T>,
>(
  trx: Trx,
  { table, columns }: { table: T; columns: readonly SE[] },
  tenantId: string,
  id: string,
  change: {
    name?: string | null;
    webhookSecretCiphertext?: Database[T]['webhook_secret_ciphertext'];
  },
): Promise<RowOf<T, SE> | undefined> {
  // Typed against the union, as in tenantRows().
  const union: SecretConnectionTable = table;
  const update = trx
    .updateTable(union)
    .set({
      ...(change.name !== undefined && { name: change.name }),
      ...(change.webhookSecretCiphertext !== undefined && {
        webhook_secret_ciphertext: change.webhookSecretCiphertext,
      }),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id);
  // The one cast, as in tenantRows(): back to the caller's table T, so that `columns` and the
  // row type are checked against T's own columns.
  return (update as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>)
    .returning(columns)
    .executeTakeFirst();
}
