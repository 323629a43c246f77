import {
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';

const ROW_HEIGHT = 40;

export interface DataTableProps<Row extends { id: string }> {
  /** The accessible name of the table's scroll area, e.g. "Contacts list". */
  label: string;
  rows: Row[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TanStack's own column list type
  columns: ColumnDef<Row, any>[];
  total: number;
  sorting: SortingState;
  onSortingChange: (sorting: SortingState) => void;
  hasMore: boolean;
  loadMore: () => void;
}

/**
 * A list of records as a real table (column headers, sort buttons in the sortable ones), only
 * the visible rows in the DOM (TanStack Virtual); nearing the end of the loaded rows asks for
 * the next page. Sorting is the server's, so every page comes in the chosen order: a column's
 * id is the API's `sortBy` for it, and a column with `enableSorting: false` has no button.
 */
export function DataTable<Row extends { id: string }>({
  label,
  rows: data,
  columns,
  total,
  sorting,
  onSortingChange,
  hasMore,
  loadMore,
}: DataTableProps<Row>) {
  const table = useReactTable({
    data,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    enableSortingRemoval: false,
    state: { sorting },
    onSortingChange: (update) =>
      onSortingChange(typeof update === 'function' ? update(sorting) : update),
    getRowId: (row) => row.id,
  });
  const rows = table.getRowModel().rows;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (hasMore && lastShown >= rows.length - 10) loadMore();
  }, [hasMore, lastShown, rows.length, loadMore]);

  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <div ref={scroller} className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table aria-rowcount={total + 1}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => {
                const title = flexRender(header.column.columnDef.header, header.getContext());
                if (!header.column.getCanSort()) {
                  return (
                    <th key={header.id} scope="col">
                      {title}
                    </th>
                  );
                }
                const sorted = header.column.getIsSorted();
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={
                      sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'
                    }
                  >
                    <button type="button" onClick={header.column.getToggleSortingHandler()}>
                      {title}
                      <span aria-hidden="true">
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </span>
                    </button>
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {before > 0 && (
            <tr aria-hidden="true">
              <td colSpan={columns.length} style={{ height: before }} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index];
            return (
              <tr key={row.id} aria-rowindex={item.index + 2} style={{ height: ROW_HEIGHT }}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            );
          })}
          {after > 0 && (
            <tr aria-hidden="true">
              <td colSpan={columns.length} style={{ height: after }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A paged list's table under the line that says how many of its rows are loaded (a status,
 * announced politely as more arrive): what every list screen shows once its first page is in.
 */
export function LoadedTable<Row extends { id: string }>({
  noun,
  of,
  loadingMore,
  ...table
}: DataTableProps<Row> & {
  /** What the rows are, plural: "contacts". */
  noun: string;
  /** The total as shown (an exact count, or "more than …"). */
  of: React.ReactNode;
  loadingMore: boolean;
}) {
  return (
    <>
      <p role="status" className="muted">
        {table.rows.length} of {of} {noun} shown{loadingMore ? ', loading more…' : ''}
      </p>
      <DataTable {...table} />
    </>
  );
}
