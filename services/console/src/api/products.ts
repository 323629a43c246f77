import { api, type Envelope } from './client';

export interface Product {
  id: string;
  sku: string;
  name: string | null;
  description: string | null;
  /** A decimal as stored, kept exact as a string. */
  price: string | null;
  currency: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
}

/** A page of a list paged by number (docs/api.md, List responses). */
export interface NumberedPage<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** The sorts the product list offers (both indexed). */
export type ProductSortColumn = 'created_at' | 'sku';
export interface ProductQuery {
  sortBy: ProductSortColumn;
  sortOrder: 'asc' | 'desc';
}

export const PRODUCTS_PAGE_SIZE = 50;

/** One page of products, by number (the list has no cursor). */
export function fetchProductsPage(query: ProductQuery, page: number, signal?: AbortSignal) {
  const params = new URLSearchParams({
    page: String(page),
    pageSize: String(PRODUCTS_PAGE_SIZE),
    sortBy: query.sortBy,
    sortOrder: query.sortOrder,
  });
  return api<NumberedPage<Product>>(`/api/crm/products?${params}`, { signal });
}

/** One product (GET /api/crm/products/:id). */
export function fetchProduct(id: string, signal?: AbortSignal) {
  return api<Envelope<{ product: Product }>>(`/api/crm/products/${encodeURIComponent(id)}`, {
    signal,
  });
}
