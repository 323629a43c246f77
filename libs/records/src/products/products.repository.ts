import type { ProductsTable, Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import {
  listCursorBinding,
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import { likePattern } from '../search-rows.repository';
import { productEvent, type ProductEventData } from './products.events';
import type { ProductChange, ProductInput } from './products.schema';

/** Every column a product is read with. */
export const PRODUCT_COLUMNS = [
  'id',
  'sku',
  'name',
  'description',
  'price',
  'currency',
  'active',
  'created_at',
  'updated_at',
] as const;
export type ProductColumn = (typeof PRODUCT_COLUMNS)[number];
export type Product = Pick<Selectable<ProductsTable>, (typeof PRODUCT_COLUMNS)[number]>;

/** The columns an input may set besides its sku; one it leaves out keeps the stored value. */
const SET_COLUMNS = ['name', 'description', 'price', 'currency', 'active'] as const;

export async function findProduct(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<Product | undefined> {
  return trx
    .selectFrom('crm_products')
    .select(PRODUCT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findProductBySku(
  trx: Trx,
  tenantId: string,
  sku: string,
): Promise<Product | undefined> {
  return trx
    .selectFrom('crm_products')
    .select(PRODUCT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('sku', '=', sku)
    .executeTakeFirst();
}

/**
 * What the product list may be sorted by, each the column its index holds: created_at
 * (crm_products_by_created, `(tenant_id, created_at, id)`, migration 0019) and sku (the unique
 * `(tenant_id, sku)`, which needs no tie-break). Both NOT NULL.
 */
export const PRODUCT_SORT_KEYS = {
  created_at: { expression: sql`crm_products.created_at`, type: 'timestamptz' },
  sku: { expression: sql`crm_products.sku`, type: 'text' },
} satisfies Record<string, SortKey>;
export type ProductSortKey = keyof typeof PRODUCT_SORT_KEYS;

/** What the product list may be narrowed to: `q` in the name or sku (any case), `active`. */
export interface ProductFilters {
  q?: string;
  active?: boolean;
}

/**
 * A page of the tenant's products, by page or by cursor (the shared keyset helper), filtered:
 * `q` as a search (the page walks the sort's index first), `active` on the rows.
 */
export async function listProducts(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<ProductSortKey>,
  filters: ProductFilters,
  binding: Pick<CursorBinding, 'secret'>,
): Promise<CursorPage<Product>> {
  let query = trx
    .selectFrom('crm_products')
    .select(PRODUCT_COLUMNS)
    .where('crm_products.tenant_id', '=', tenantId);
  if (filters.active !== undefined) query = query.where('crm_products.active', '=', filters.active);
  const pattern = filters.q ? likePattern(filters.q) : undefined;
  return paginateByKeyset(trx, query, page, {
    search: pattern
      ? sql<boolean>`(crm_products.name ILIKE ${pattern} OR crm_products.sku ILIKE ${pattern})`
      : undefined,
    sortKeys: PRODUCT_SORT_KEYS,
    tiebreak: 'crm_products.id',
    binding: listCursorBinding(binding.secret, 'crm_products', tenantId, { ...filters }),
    filtered: Boolean(filters.q) || filters.active !== undefined,
  });
}

/**
 * Creates or updates the product with this sku in one statement, and emits `product.created`
 * or `product.updated` with the product as stored.
 */
export async function upsertProduct(
  trx: Trx,
  tenantId: string,
  input: ProductInput,
): Promise<{ product: Product; created: boolean }> {
  const given: Partial<Pick<ProductInput, (typeof SET_COLUMNS)[number]>> = {};
  for (const column of SET_COLUMNS) {
    if (input[column] !== undefined) Object.assign(given, { [column]: input[column] });
  }
  const row = await trx
    .insertInto('crm_products')
    .values({ tenant_id: tenantId, sku: input.sku, ...given })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'sku']).doUpdateSet({ ...given, updated_at: sql`now()` }),
    )
    .returning([...PRODUCT_COLUMNS, sql<boolean>`(xmax = 0)`.as('created')])
    .executeTakeFirstOrThrow();
  const { created, ...product } = row;
  await writeEvent(trx, productEvent(tenantId, { id: product.id, created }, eventData(product)));
  return { product, created };
}

/** The event's `data`: the product as stored. */
function eventData(product: Product): ProductEventData {
  return {
    sku: product.sku,
    name: product.name,
    price: product.price,
    currency: product.currency,
    active: product.active,
  };
}

/**
 * Applies a change to the product with this id (a field given replaces the stored one, null
 * clears it) and emits `product.updated`; undefined when the tenant has no such product.
 */
export async function updateProduct(
  trx: Trx,
  tenantId: string,
  id: string,
  change: ProductChange,
): Promise<Product | undefined> {
  const given: Partial<ProductChange> = {};
  for (const column of SET_COLUMNS) {
    if (change[column] !== undefined) Object.assign(given, { [column]: change[column] });
  }
  const product = await trx
    .updateTable('crm_products')
    .set({ ...given, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(PRODUCT_COLUMNS)
    .executeTakeFirst();
  if (!product) return undefined;
  await writeEvent(
    trx,
    productEvent(tenantId, { id: product.id, created: false }, eventData(product)),
  );
  return product;
}
