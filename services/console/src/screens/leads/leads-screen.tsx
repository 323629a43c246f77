import type { SortingState } from '@tanstack/react-table';
import { useCallback, useMemo, useState } from 'react';
import { Link, Outlet } from 'react-router';
import { OPENING_LEAD_QUERY, type LeadSortColumn } from '../../api/leads';
import { QueryStates } from '../../ui/states';
import { useDebounced } from '../../ui/use-debounced';
import { LeadFilters, type FilterValues } from './lead-filters';
import { LoadedTable } from '../../ui/data-table';
import { LEAD_COLUMNS } from './lead-columns';
import { useLeads } from './use-leads';
import { useRole } from '../../session/use-role';

/**
 * How long the filters must rest before the list is asked for: short, since the target is the
 * rows within 300 ms of the last keystroke and the answer takes most of it at a million leads.
 * A request typed past is cancelled (use-leads.ts) and the previous rows stay until the answer.
 */
const SEARCH_DEBOUNCE_MS = 100;

const { q, status, source, sortBy, sortOrder } = OPENING_LEAD_QUERY;

/** Leads: search and filters, the sortable table loading more as it scrolls, the detail panel. */
export function LeadsScreen() {
  const { canWrite } = useRole();
  const [filters, setFilters] = useState<FilterValues>({ q, status, source });
  const [sorting, setSorting] = useState<SortingState>([
    { id: sortBy, desc: sortOrder === 'desc' },
  ]);
  const settled = useDebounced(filters, SEARCH_DEBOUNCE_MS);
  const query = useMemo(
    () => ({
      ...settled,
      sortBy: (sorting[0]?.id ?? 'created_at') as LeadSortColumn,
      sortOrder: sorting[0]?.desc ? ('desc' as const) : ('asc' as const),
    }),
    [settled, sorting],
  );
  const leads = useLeads(query);
  const pages = leads.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  // Past 10,000 the API counts no further: `total` is then a floor, said as "more than".
  const totalText = pages?.[0]?.totalExact === false ? `more than ${total}` : String(total);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = leads;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const filtered = Boolean(settled.q.trim() || settled.status || settled.source.trim());

  return (
    <section aria-labelledby="screen-title" className="leads">
      <div className="screen-head">
        <h1 id="screen-title">Leads</h1>
        {canWrite && (
          <Link to="/leads/new" className="button-link">
            New lead
          </Link>
        )}
        {canWrite && <Link to="/leads/import">Import leads</Link>}
        <Link to="/exports">Export leads</Link>
      </div>
      <LeadFilters values={filters} onChange={setFilters} />
      <div className="leads-body">
        <div className="leads-list" aria-busy={leads.isFetching}>
          <QueryStates
            query={leads}
            what="leads"
            isEmpty={() => rows.length === 0}
            empty={
              <p>
                {filtered
                  ? 'No lead matches these filters.'
                  : 'No leads yet. Add one with New lead, import them from a CSV or XLSX file (Import leads), or with POST /api/v1/import/leads (see the API reference).'}
              </p>
            }
          >
            {() => (
              <LoadedTable
                noun="leads"
                of={totalText}
                loadingMore={isFetchingNextPage}
                label="Leads list"
                rows={rows}
                columns={LEAD_COLUMNS}
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
