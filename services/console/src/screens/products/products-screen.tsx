import type { SortingState } from '@tanstack/react-table';
import { useCallback, useMemo, useState } from 'react';
import { Outlet } from 'react-router';
import type { ProductSortColumn } from '../../api/products';
import { LoadedTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { PRODUCT_COLUMNS } from './product-columns';
import { useProducts } from './use-products';

/** Products: the sortable table loading more as it scrolls, a product's panel. */
export function ProductsScreen() {
  const [sorting, setSorting] = useState<SortingState>([{ id: 'created_at', desc: true }]);
  const query = useMemo(
    () => ({
      sortBy: (sorting[0]?.id ?? 'created_at') as ProductSortColumn,
      sortOrder: sorting[0]?.desc ? ('desc' as const) : ('asc' as const),
    }),
    [sorting],
  );
  const products = useProducts(query);
  const pages = products.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = products;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Products</h1>
      <div className="records-body">
        <div className="records-list" aria-busy={products.isFetching}>
          <QueryStates
            query={products}
            what="products"
            isEmpty={() => rows.length === 0}
            empty={
              <p>No products yet. They arrive through MCP's ingest_products or a migration.</p>
            }
          >
            {() => (
              <LoadedTable
                noun="products"
                of={total}
                loadingMore={isFetchingNextPage}
                label="Products list"
                rows={rows}
                columns={PRODUCT_COLUMNS}
                total={total}
                sorting={sorting}
                onSortingChange={setSorting}
                hasMore={Boolean(hasNextPage)}
                loadMore={loadMore}
              />
            )}
          </QueryStates>
        </div>
        <Outlet />
      </div>
    </section>
  );
}
