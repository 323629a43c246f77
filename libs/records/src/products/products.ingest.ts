import type { Trx } from '@crm/shared/db';
import { parseRecords } from '../fields';
import { ingestResult, type IngestResult } from '../ingest-result';
import { upsertProduct } from './products.repository';
import { productInputSchema, type ProductResultItem } from './products.schema';

/**
 * A batch of products (productInputSchema) stored in the caller's tenant transaction, each
 * upserted by sku with its `product.created` / `product.updated` event; refused records come
 * back as `{ index, error }`.
 */
export async function ingestProducts(
  trx: Trx,
  tenantId: string,
  rows: readonly unknown[],
): Promise<IngestResult<ProductResultItem>> {
  const { valid, errors } = parseRecords(productInputSchema, rows);
  const data: ProductResultItem[] = [];
  for (const { value } of valid) {
    const { product, created } = await upsertProduct(trx, tenantId, value);
    data.push({ id: product.id, sku: product.sku, created });
  }
  return ingestResult(data, errors);
}
