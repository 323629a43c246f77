import type { ProductColumn } from '@crm/records';
import { z } from 'zod';

/**
 * The product's own schemas and rules are in @crm/records; these are the HTTP edge's. Sorting
 * is by `created_at` (crm_products_by_created) or `sku` (the unique key), both indexed.
 */
export const PRODUCT_SORTABLE = ['created_at', 'sku'] as const satisfies readonly ProductColumn[];
/** A product id in a path; anything else is answered as an unknown product. */
export const productIdSchema = z.uuid();
