import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { InboundEvent } from '../../api/integrations';

const delivery = createColumnHelper<InboundEvent>();

/** The delivery log's columns; the list is newest first, with no other order offered. */
export function deliveryColumns(search: string) {
  return [
    delivery.accessor('received_at', {
      header: 'Received',
      enableSorting: false,
      cell: (info) => (
        <Link to={`/integrations/deliveries/${info.row.original.id}${search}`}>
          {new Date(info.getValue()).toLocaleString()}
        </Link>
      ),
    }),
    delivery.accessor('provider', { header: 'Provider', enableSorting: false }),
    delivery.accessor('event_type', {
      header: 'Event',
      enableSorting: false,
      cell: (info) => info.getValue() ?? '—',
    }),
    delivery.accessor('verification', { header: 'Verification', enableSorting: false }),
    delivery.accessor('outcome', { header: 'Outcome', enableSorting: false }),
    delivery.accessor('attempts', { header: 'Attempts', enableSorting: false }),
    delivery.accessor('detail', {
      header: 'Detail',
      enableSorting: false,
      cell: (info) => info.getValue() ?? '—',
    }),
  ];
}
