import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { Contact } from '../../api/contacts';
import { dateTime } from '../../ui/date-time';

const column = createColumnHelper<Contact>();

/**
 * The contacts table's columns; each sortable one's id is the API's `sortBy` for it (created,
 * email, last name: the sorts an index backs).
 */
export const CONTACT_COLUMNS = [
  column.accessor('email', {
    header: 'Email',
    cell: (info) => (
      <Link to={`/contacts/${info.row.original.id}`}>{info.getValue() ?? '(no email)'}</Link>
    ),
  }),
  column.accessor('first_name', {
    header: 'First name',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '',
  }),
  column.accessor('last_name', { header: 'Last name', cell: (info) => info.getValue() ?? '' }),
  column.accessor('phone', {
    header: 'Phone',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '',
  }),
  column.accessor('created_at', {
    header: 'Created',
    cell: (info) => dateTime(info.getValue()),
  }),
];
