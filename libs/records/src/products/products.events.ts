import type { EventInput } from '@crm/shared/events';

export const PRODUCT_MODULE = 'products';
export const PRODUCT_EVENT_TYPES = ['product.created', 'product.updated'] as const;
export type ProductEventType = (typeof PRODUCT_EVENT_TYPES)[number];

/** `data` of `product.created` / `product.updated`: the product as stored. */
export interface ProductEventData {
  sku: string;
  name: string | null;
  /** The exact decimal, as a string. */
  price: string | null;
  currency: string | null;
  active: boolean;
}

export function productEvent(
  tenantId: string,
  product: { id: string; created: boolean },
  data: ProductEventData,
): EventInput {
  return {
    type: product.created ? 'product.created' : 'product.updated',
    tenant_id: tenantId,
    record: { module: PRODUCT_MODULE, id: product.id },
    data: { ...data },
  };
}
