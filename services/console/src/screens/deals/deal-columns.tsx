import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { Deal } from '../../api/deals';
import { money, stageLabel } from './stages';
import { dateTime } from '../../ui/date-time';

const column = createColumnHelper<Deal>();

/** The deals list's columns; none sorts (the list is newest first, its only order). */
export function dealColumns(ownerName: (id: string) => string) {
  return [
    column.accessor('title', {
      header: 'Title',
      enableSorting: false,
      cell: (info) => <Link to={`/deals/list/${info.row.original.id}`}>{info.getValue()}</Link>,
    }),
    column.accessor('value', {
      header: 'Value',
      enableSorting: false,
      cell: (info) => money(info.getValue(), info.row.original.currency),
    }),
    column.accessor('stage', {
      header: 'Stage',
      enableSorting: false,
      cell: (info) => stageLabel(info.getValue()),
    }),
    column.accessor('assigned_to', {
      header: 'Owner',
      enableSorting: false,
      cell: (info) => {
        const owner = info.getValue();
        return owner ? ownerName(owner) : '—';
      },
    }),
    column.accessor('expected_close_date', {
      header: 'Expected close',
      enableSorting: false,
      cell: (info) => info.getValue() ?? '—',
    }),
    column.accessor('created_at', {
      header: 'Created',
      enableSorting: false,
      cell: (info) => dateTime(info.getValue()),
    }),
  ];
}
