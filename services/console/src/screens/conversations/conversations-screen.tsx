import type { SortingState } from '@tanstack/react-table';
import { useCallback, useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CONVERSATION_STATUSES, type ConversationSortColumn } from '../../api/conversations';
import { LoadedTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { useDebounced } from '../../ui/use-debounced';
import { CONVERSATION_COLUMNS } from './conversation-columns';
import { useConversations } from './use-conversations';

/**
 * Conversations: filtered by channel and status (and by contact, from a contact's panel: the
 * address's `contact_id`), the sortable table loading more as it scrolls; a conversation's
 * party opens its thread.
 */
export function ConversationsScreen() {
  const id = useId();
  const [params] = useSearchParams();
  const contactId = params.get('contact_id') ?? '';
  const [channel, setChannel] = useState('');
  const [status, setStatus] = useState('');
  const [sorting, setSorting] = useState<SortingState>([{ id: 'created_at', desc: true }]);
  const settledChannel = useDebounced(channel);
  const query = useMemo(
    () => ({
      sortBy: (sorting[0]?.id ?? 'created_at') as ConversationSortColumn,
      sortOrder: sorting[0]?.desc === false ? ('asc' as const) : ('desc' as const),
      channel: settledChannel,
      status,
      contact_id: contactId,
    }),
    [sorting, settledChannel, status, contactId],
  );
  const conversations = useConversations(query);
  const pages = conversations.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = conversations;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const filtered = Boolean(settledChannel.trim() || status || contactId);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Conversations</h1>
      <form role="search" className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={`${id}-channel`}>Channel</label>
        <input
          id={`${id}-channel`}
          type="text"
          value={channel}
          placeholder="Any channel, e.g. chat"
          onChange={(event) => setChannel(event.target.value)}
        />
        <label htmlFor={`${id}-status`}>Status</label>
        <select
          id={`${id}-status`}
          value={status}
          onChange={(event) => setStatus(event.target.value)}
        >
          <option value="">Any status</option>
          {CONVERSATION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </form>
      {contactId && (
        <p className="filters">
          Only the conversations of this contact.{' '}
          <Link to="/conversations">Show all conversations</Link>
        </p>
      )}
      <div className="records-list" aria-busy={conversations.isFetching}>
        <QueryStates
          query={conversations}
          what="conversations"
          isEmpty={() => rows.length === 0}
          empty={
            <p>
              {filtered
                ? 'No conversation matches these filters.'
                : 'No conversations yet. They arrive through the messaging receiver, MCP or a migration.'}
            </p>
          }
        >
          {() => (
            <LoadedTable
              noun="conversations"
              of={total}
              loadingMore={isFetchingNextPage}
              label="Conversations list"
              rows={rows}
              columns={CONVERSATION_COLUMNS}
              total={total}
              sorting={sorting}
              onSortingChange={setSorting}
              hasMore={Boolean(hasNextPage)}
              loadMore={loadMore}
            />
          )}
        </QueryStates>
      </div>
    </section>
  );
}
