import type { UseInfiniteQueryResult, UseQueryResult } from '@tanstack/react-query';
import { Problem } from './problem';

/** The loading state: announced politely to screen readers. */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

/** The empty state: what is missing and, when there is one, what to do about it. */
export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** A query's result, plain or infinite; its error type does not matter to the states. */
type QueryResult<TData> = UseQueryResult<TData, unknown> | UseInfiniteQueryResult<TData, unknown>;

/** A view with an empty state names both when the data counts as empty and what it then says. */
type EmptyState<TData> =
  | { isEmpty?: never; empty?: never }
  | {
      /** Whether the loaded data is empty; it may read values the screen derived from it. */
      isEmpty: (data: TData) => boolean;
      /** What the empty state says, inside `<Empty>`. */
      empty: React.ReactNode;
    };

/**
 * Every view of a query goes through the same states, in this order: loading, then the error with
 * its retry (a 401 goes to sign-in, see Problem), then the empty state when there is one, and only
 * then the content, rendered from the loaded data. Nothing wraps them: the DOM is the state's own.
 */
export function QueryStates<TData>({
  query,
  what,
  isEmpty,
  empty,
  children,
}: {
  query: QueryResult<TData>;
  /** What is loading, as in "Loading {what}…". */
  what: string;
  children: (data: TData) => React.ReactNode;
} & EmptyState<TData>) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <Problem error={query.error} onRetry={() => void query.refetch()} />;
  if (isEmpty?.(query.data)) return <Empty>{empty}</Empty>;
  return children(query.data);
}
