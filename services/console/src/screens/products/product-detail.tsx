import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { fetchProduct, type Product } from '../../api/products';
import { QueryStates } from '../../ui/states';
import { dateTime } from '../../ui/date-time';

const FIELDS: Array<[keyof Product, string]> = [
  ['sku', 'SKU'],
  ['name', 'Name'],
  ['description', 'Description'],
  ['price', 'Price'],
  ['currency', 'Currency'],
  ['active', 'Active'],
  ['created_at', 'Created'],
  ['updated_at', 'Updated'],
];

/** One product's fields (GET /api/crm/products/:id), next to the list; its address can be shared. */
export function ProductDetail() {
  const { productId = '' } = useParams();
  const heading = useRef<HTMLHeadingElement>(null);
  const product = useQuery({
    queryKey: ['product', productId],
    queryFn: ({ signal }) => fetchProduct(productId, signal),
    select: (body) => body.data.product,
  });
  // Opening a product moves the keyboard focus to its panel.
  useEffect(() => heading.current?.focus(), [productId, product.isSuccess]);
  return (
    <aside className="detail" aria-labelledby="product-title">
      <h2 id="product-title" ref={heading} tabIndex={-1}>
        {product.data ? (product.data.name ?? product.data.sku) : 'Product'}
      </h2>
      <QueryStates query={product} what="the product">
        {(data) => (
          <dl>
            {FIELDS.map(([field, label]) => (
              <div key={field}>
                <dt>{label}</dt>
                <dd>{show(field, data[field])}</dd>
              </div>
            ))}
          </dl>
        )}
      </QueryStates>
      <Link to="/products">Close</Link>
    </aside>
  );
}

function show(field: keyof Product, value: Product[keyof Product]): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (field === 'created_at' || field === 'updated_at') return dateTime(String(value));
  return String(value);
}
