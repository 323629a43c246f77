import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { fetchActivity, type Activity } from '../../api/activities';
import { QueryStates } from '../../ui/states';
import { About } from './activity-columns';
import { dateTime } from '../../ui/date-time';

const FIELDS: Array<[keyof Activity, string]> = [
  ['type', 'Type'],
  ['subject', 'Subject'],
  ['body', 'Body'],
  ['occurred_at', 'Occurred'],
  ['created_at', 'Created'],
  ['updated_at', 'Updated'],
];

/** One activity's fields (GET /api/crm/activities/:id), next to the list; its address can be shared. */
export function ActivityDetail() {
  const { activityId = '' } = useParams();
  const { search } = useLocation();
  const heading = useRef<HTMLHeadingElement>(null);
  const activity = useQuery({
    queryKey: ['activity', activityId],
    queryFn: ({ signal }) => fetchActivity(activityId, signal),
    select: (body) => body.data.activity,
  });
  // Opening an activity moves the keyboard focus to its panel.
  useEffect(() => heading.current?.focus(), [activityId, activity.isSuccess]);
  return (
    <aside className="detail" aria-labelledby="activity-title">
      <h2 id="activity-title" ref={heading} tabIndex={-1}>
        {activity.data ? (activity.data.subject ?? activity.data.type) : 'Activity'}
      </h2>
      <QueryStates query={activity} what="the activity">
        {(data) => (
          <dl>
            {FIELDS.map(([field, label]) => (
              <div key={field}>
                <dt>{label}</dt>
                <dd>{show(field, data[field])}</dd>
              </div>
            ))}
            <div>
              <dt>About</dt>
              <dd>
                <About activity={data} />
              </dd>
            </div>
            {Object.entries(data.custom_fields ?? {}).map(([key, value]) => (
              <div key={`custom-${key}`}>
                <dt>{key}</dt>
                <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
              </div>
            ))}
          </dl>
        )}
      </QueryStates>
      <Link to={`/activities${search}`}>Close</Link>
    </aside>
  );
}

function show(field: keyof Activity, value: Activity[keyof Activity]): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'occurred_at' || field === 'created_at' || field === 'updated_at')
    return dateTime(String(value));
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
