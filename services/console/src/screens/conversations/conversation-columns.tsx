import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { Conversation } from '../../api/conversations';
import { dateTime } from '../../ui/date-time';

const column = createColumnHelper<Conversation>();

/** Who a conversation is with: the contact's name, email or phone, else the channel's id. */
export function conversationParty(c: Conversation): string {
  return c.contact_name || c.contact_email || c.contact_phone || c.external_id;
}

const when = (value: string | null) => (value ? dateTime(value) : '—');

/** The conversations table's columns; created and last message are the API's two sorts. */
export const CONVERSATION_COLUMNS = [
  column.display({
    id: 'with',
    header: 'With',
    cell: (info) => (
      <Link to={`/conversations/${info.row.original.id}`}>
        {conversationParty(info.row.original)}
      </Link>
    ),
  }),
  column.accessor('subject', {
    header: 'Subject',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '—',
  }),
  column.accessor('channel', { header: 'Channel', enableSorting: false }),
  column.accessor('status', {
    header: 'Status',
    enableSorting: false,
    cell: (info) => info.getValue() ?? '—',
  }),
  column.accessor('last_message_at', {
    header: 'Last message',
    cell: (info) => when(info.getValue()),
  }),
  column.accessor('created_at', { header: 'Created', cell: (info) => when(info.getValue()) }),
];
