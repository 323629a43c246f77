import type { SortingState } from '@tanstack/react-table';
import { useCallback, useMemo, useState } from 'react';
import { Link } from 'react-router';
import type { FormSortColumn } from '../../api/forms';
import { useRole } from '../../session/use-role';
import { DataTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { FORM_COLUMNS } from './form-columns';
import { useForms } from './use-forms';

/** Web forms: the tenant's forms in the sortable table, and (owner, admin) a new one. */
export function FormsScreen() {
  const manage = useRole().canManageForms;
  const [sorting, setSorting] = useState<SortingState>([{ id: 'created_at', desc: true }]);
  const query = useMemo(
    () => ({
      sortBy: (sorting[0]?.id ?? 'created_at') as FormSortColumn,
      sortOrder: sorting[0]?.desc === false ? ('asc' as const) : ('desc' as const),
    }),
    [sorting],
  );
  const forms = useForms(query);
  const pages = forms.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = forms;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Forms</h1>
      {manage && (
        <p>
          <Link to="/forms/new" className="button-link">
            New form
          </Link>
        </p>
      )}
      <div className="records-list" aria-busy={forms.isFetching}>
        <QueryStates
          query={forms}
          what="forms"
          isEmpty={() => rows.length === 0}
          empty={
            <p>
              No forms yet.{' '}
              {manage
                ? 'Create one with New form, then embed it on your website.'
                : 'An owner or admin of the tenant can create one.'}
            </p>
          }
        >
          {() => (
            <>
              <p role="status" className="muted">
                {rows.length} of {total} forms shown{isFetchingNextPage ? ', loading more…' : ''}
              </p>
              <DataTable
                label="Forms list"
                rows={rows}
                columns={FORM_COLUMNS}
                total={total}
                sorting={sorting}
                onSortingChange={setSorting}
                hasMore={Boolean(hasNextPage)}
                loadMore={loadMore}
              />
            </>
          )}
        </QueryStates>
      </div>
    </section>
  );
}
