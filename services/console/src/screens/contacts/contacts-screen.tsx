import type { SortingState } from '@tanstack/react-table';
import { useCallback, useId, useMemo, useState } from 'react';
import { Outlet } from 'react-router';
import type { ContactSortColumn } from '../../api/contacts';
import { LoadedTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { useDebounced } from '../../ui/use-debounced';
import { CONTACT_COLUMNS } from './contact-columns';
import { useContacts } from './use-contacts';

/** Contacts: search (names, email, phone, company), the sortable table loading more as it scrolls, the panel. */
export function ContactsScreen() {
  const id = useId();
  const [q, setQ] = useState('');
  const [sorting, setSorting] = useState<SortingState>([{ id: 'created_at', desc: true }]);
  const settled = useDebounced(q);
  const query = useMemo(
    () => ({
      q: settled,
      sortBy: (sorting[0]?.id ?? 'created_at') as ContactSortColumn,
      sortOrder: sorting[0]?.desc ? ('desc' as const) : ('asc' as const),
    }),
    [settled, sorting],
  );
  const contacts = useContacts(query);
  const pages = contacts.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  // Past 10,000 the API counts no further: `total` is then a floor, said as "more than".
  const totalText = pages?.[0]?.totalExact === false ? `more than ${total}` : String(total);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = contacts;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Contacts</h1>
      <form role="search" className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={`${id}-search`}>Search</label>
        <input
          id={`${id}-search`}
          type="search"
          value={q}
          placeholder="Name, email, phone or company"
          onChange={(event) => setQ(event.target.value)}
        />
      </form>
      <div className="records-body">
        <div className="records-list" aria-busy={contacts.isFetching}>
          <QueryStates
            query={contacts}
            what="contacts"
            isEmpty={() => rows.length === 0}
            empty={
              <p>
                {settled.trim()
                  ? 'No contact matches this search.'
                  : 'No contacts yet. Add them with POST /api/crm/contacts (see the API reference).'}
              </p>
            }
          >
            {() => (
              <LoadedTable
                noun="contacts"
                of={totalText}
                loadingMore={isFetchingNextPage}
                label="Contacts list"
                rows={rows}
                columns={CONTACT_COLUMNS}
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
