import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { fetchProductsPage, type ProductQuery } from '../../api/products';

/** The product list, page after page by number; the previous rows stay while a new sort loads. */
export function useProducts(query: ProductQuery) {
  return useInfiniteQuery({
    queryKey: ['products', query],
    queryFn: ({ pageParam, signal }) => fetchProductsPage(query, pageParam, signal),
    initialPageParam: 1,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}
