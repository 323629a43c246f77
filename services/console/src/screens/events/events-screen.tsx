import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { fetchEventsPage, fetchEventTypes, type PlatformEvent } from '../../api/events';
import { QueryStates } from '../../ui/states';

/**
 * Recent events: what the platform recorded for the tenant (GET /api/events), newest first,
 * filterable by type and read page after page by cursor, so a user can see what their
 * workflows react to. Read-only for every role.
 */
export function EventsScreen() {
  const id = useId();
  const [type, setType] = useState('');
  const types = useQuery({
    queryKey: ['event-types'],
    queryFn: ({ signal }) => fetchEventTypes(signal),
    select: (body) => body.data.types,
    staleTime: Infinity,
  });
  const events = useInfiniteQuery({
    queryKey: ['events', type],
    queryFn: ({ pageParam, signal }) => fetchEventsPage(type, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = events.data?.pages.flatMap((page) => page.items) ?? [];
  const total = events.data?.pages[0];
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Events</h1>
      <p className="muted">
        What the platform recorded for this tenant in the last days: the events workflows can be
        triggered by. Newest first.
      </p>
      <div className="filters">
        <label htmlFor={`${id}-type`}>Event type</label>
        <select id={`${id}-type`} value={type} onChange={(event) => setType(event.target.value)}>
          <option value="">All types</option>
          {(types.data ?? []).map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void events.refetch()} disabled={events.isFetching}>
          Refresh
        </button>
      </div>
      <QueryStates
        query={events}
        what="events"
        isEmpty={() => rows.length === 0}
        empty={
          <p>
            {type
              ? `No ${type} events recently.`
              : 'No events recently. Creating or changing a record, a form submission or a webhook delivery records one.'}
          </p>
        }
      >
        {() => (
          <>
            <table className="plain-table events-table">
              <caption>
                Events ({total?.totalExact ? total.total : `more than ${total?.total}`})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Type</th>
                  <th scope="col">Record</th>
                  <th scope="col">Payload</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((event) => (
                  <EventRow key={event.id} event={event} />
                ))}
              </tbody>
            </table>
            {events.hasNextPage && (
              <button
                type="button"
                onClick={() => void events.fetchNextPage()}
                disabled={events.isFetchingNextPage}
              >
                {events.isFetchingNextPage ? 'Loading more events…' : 'Load more events'}
              </button>
            )}
          </>
        )}
      </QueryStates>
    </section>
  );
}

function EventRow({ event }: { event: PlatformEvent }) {
  return (
    <tr>
      <td>
        <time dateTime={event.occurred_at}>{new Date(event.occurred_at).toLocaleString()}</time>
      </td>
      <td>
        <code>{event.type}</code>
        {event.event_count > 1 && (
          <span className="muted"> ({event.event_count} events, the first shown)</span>
        )}
      </td>
      <td>
        {event.record.module} <code>{event.record.id}</code>
      </td>
      <td>
        <details>
          <summary>
            Payload of {event.type} at {new Date(event.occurred_at).toLocaleTimeString()}
          </summary>
          <pre>{JSON.stringify(event.data, null, 2)}</pre>
        </details>
      </td>
    </tr>
  );
}
