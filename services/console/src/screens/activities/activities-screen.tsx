import type { SortingState } from '@tanstack/react-table';
import { useCallback, useMemo, useState } from 'react';
import { Link, Outlet, useSearchParams } from 'react-router';
import { ACTIVITY_FILTERS, type ActivityFilter } from '../../api/activities';
import { LoadedTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { ACTIVITY_COLUMNS } from './activity-columns';
import { useActivities } from './use-activities';

const FILTER_NAMES: Record<ActivityFilter, string> = {
  lead_id: 'lead',
  contact_id: 'contact',
  deal_id: 'deal',
};

/**
 * Activities, newest first: the sortable table loading more as it scrolls, an activity's panel.
 * The address's `lead_id`, `contact_id` or `deal_id` keeps only that record's activities (a
 * contact's panel links here so).
 */
export function ActivitiesScreen() {
  const [params] = useSearchParams();
  const [sorting, setSorting] = useState<SortingState>([{ id: 'occurred_at', desc: true }]);
  const filterKey = ACTIVITY_FILTERS.map((name) => params.get(name) ?? '').join('|');
  const query = useMemo(() => {
    const [lead_id, contact_id, deal_id] = filterKey.split('|');
    return {
      sortOrder: sorting[0]?.desc === false ? ('asc' as const) : ('desc' as const),
      filters: { lead_id, contact_id, deal_id },
    };
  }, [filterKey, sorting]);
  const filtered = ACTIVITY_FILTERS.filter((name) => query.filters[name]);
  const activities = useActivities(query);
  const pages = activities.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = activities;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Activities</h1>
      {filtered.length > 0 && (
        <p className="filters">
          Only the activities of this {filtered.map((name) => FILTER_NAMES[name]).join(' and ')}.{' '}
          <Link to="/activities">Show all activities</Link>
        </p>
      )}
      <div className="records-body">
        <div className="records-list" aria-busy={activities.isFetching}>
          <QueryStates
            query={activities}
            what="activities"
            isEmpty={() => rows.length === 0}
            empty={
              <p>
                {filtered.length > 0
                  ? 'No activity is about this record.'
                  : 'No activities yet. Calls, emails, meetings, notes and tasks arrive through MCP or a migration.'}
              </p>
            }
          >
            {() => (
              <LoadedTable
                noun="activities"
                of={total}
                loadingMore={isFetchingNextPage}
                label="Activities list"
                rows={rows}
                columns={ACTIVITY_COLUMNS}
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
