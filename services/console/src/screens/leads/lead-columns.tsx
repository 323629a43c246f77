import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { Lead } from '../../api/leads';
import { dateTime } from '../../ui/date-time';

const column = createColumnHelper<Lead>();

/**
 * The leads table's columns; each sortable one's id is the API's `sortBy` for it. The names are
 * not sortable: the list offers only sorts an index backs.
 */
export const LEAD_COLUMNS = [
  column.accessor('email', {
    header: 'Email',
    cell: (info) => <Link to={`/leads/${info.row.original.id}`}>{info.getValue()}</Link>,
  }),
  column.accessor('first_name', {
    header: 'First name',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '',
  }),
  column.accessor('last_name', {
    header: 'Last name',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '',
  }),
  column.accessor('status', { header: 'Status' }),
  column.accessor('source', { header: 'Source', cell: (info) => info.getValue() ?? '' }),
  column.accessor('created_at', {
    header: 'Created',
    cell: (info) => dateTime(info.getValue()),
  }),
];
