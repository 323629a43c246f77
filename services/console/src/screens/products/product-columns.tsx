import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { Product } from '../../api/products';
import { dateTime } from '../../ui/date-time';

const column = createColumnHelper<Product>();

/** The products table's columns; the sortable ones (sku, created) are the API's `sortBy`. */
export const PRODUCT_COLUMNS = [
  column.accessor('sku', {
    header: 'SKU',
    cell: (info) => <Link to={`/products/${info.row.original.id}`}>{info.getValue()}</Link>,
  }),
  column.accessor('name', {
    header: 'Name',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '',
  }),
  column.accessor('price', {
    header: 'Price',
    enableSorting: false,
    cell: (info) => [info.getValue(), info.row.original.currency].filter(Boolean).join(' '),
  }),
  column.accessor('active', {
    header: 'Active',
    enableSorting: false,
    cell: (info) => (info.getValue() ? 'Yes' : 'No'),
  }),
  column.accessor('created_at', {
    header: 'Created',
    cell: (info) => dateTime(info.getValue()),
  }),
];
