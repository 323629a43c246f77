import { useEffect, useId, useState } from 'react';
import { eventTypesMatching } from '../../../../../libs/shared/src/automation/workflow-rules';
import type { PlatformEvent } from '../../api/events';
import { dateTime } from '../../ui/date-time';
import { QueryStates } from '../../ui/states';
import { useRecentEvents } from './use-workflows';

/** How an event reads in the list: type, record and time. */
function describeEvent(event: PlatformEvent): string {
  const batch = event.event_count > 1 ? ` (first of ${event.event_count} events)` : '';
  return `${event.type}${batch} · ${event.record.module} ${event.record.id} · ${dateTime(event.occurred_at)}`;
}

/**
 * One of the tenant's recent events (GET /api/events) for a test run to run on, newest first
 * and the newest picked. By default only the types the workflow's trigger matches (the rule
 * the service checks triggers with, eventTypesMatching): one type is asked of the API, a
 * pattern's types are kept from each page read. `onPick` gets the picked event's id, or
 * undefined while none is shown.
 */
export function RecentEventPicker({
  trigger,
  eventId,
  onPick,
}: {
  trigger: string;
  eventId: string | undefined;
  onPick: (eventId: string | undefined) => void;
}) {
  const id = useId();
  const [narrowed, setNarrowed] = useState(true);
  const types = eventTypesMatching(trigger);
  const events = useRecentEvents(narrowed && types.length === 1 ? types[0] : '');
  const read = events.data?.pages.flatMap((page) => page.items) ?? [];
  const shown = narrowed ? read.filter((event) => types.includes(event.type)) : read;
  const picked = shown.find((event) => event.id === eventId);
  const newest = shown[0]?.id;
  // The pick follows what is shown: the newest until the user picks another that is shown.
  useEffect(() => {
    if (!picked) onPick(newest);
  }, [picked, newest, onPick]);

  return (
    <div className="recent-events">
      <div className="checkbox-field">
        <input
          id={`${id}-narrowed`}
          type="checkbox"
          checked={narrowed}
          onChange={(e) => setNarrowed(e.target.checked)}
        />
        <label htmlFor={`${id}-narrowed`}>
          Only events the trigger matches (<code>{trigger}</code>)
        </label>
      </div>
      <QueryStates
        query={events}
        what="recent events"
        isEmpty={() => shown.length === 0}
        empty={
          <p>
            {narrowed ? `No recent events the trigger ${trigger} matches` : 'No recent events'}
            {events.hasNextPage
              ? ' among the newest read: older ones may match.'
              : '. Creating or changing a record, a form submission or a webhook delivery records one.'}
          </p>
        }
      >
        {() => (
          <div className="field">
            <label htmlFor={`${id}-event`}>Event to run on (newest first)</label>
            <select
              id={`${id}-event`}
              value={picked?.id ?? ''}
              onChange={(e) => onPick(e.target.value)}
            >
              {shown.map((event) => (
                <option key={event.id} value={event.id}>
                  {describeEvent(event)}
                </option>
              ))}
            </select>
            {picked && (
              <details>
                <summary>Payload of the picked event</summary>
                <pre>{JSON.stringify(picked.data, null, 2)}</pre>
              </details>
            )}
          </div>
        )}
      </QueryStates>
      {!events.isPending && !events.isError && events.hasNextPage && (
        <button
          type="button"
          onClick={() => void events.fetchNextPage()}
          disabled={events.isFetchingNextPage}
        >
          {events.isFetchingNextPage ? 'Loading more events…' : 'Load more events'}
        </button>
      )}
    </div>
  );
}
