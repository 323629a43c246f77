import { createColumnHelper } from '@tanstack/react-table';
import { Link, useLocation } from 'react-router';
import type { Activity } from '../../api/activities';
import { dateTime } from '../../ui/date-time';

const column = createColumnHelper<Activity>();

/** The activities table's columns; only when it happened is sortable (the API's one sort). */
export const ACTIVITY_COLUMNS = [
  column.accessor('subject', {
    header: 'Subject',
    enableSorting: false,
    cell: (info) => <ActivityLink activity={info.row.original} />,
  }),
  column.accessor('type', { header: 'Type', enableSorting: false }),
  column.display({
    id: 'about',
    header: 'About',
    cell: (info) => <About activity={info.row.original} />,
  }),
  column.accessor('occurred_at', {
    header: 'Occurred',
    cell: (info) => dateTime(info.getValue()),
  }),
];

/** An activity's subject, opening its panel with the list's filter kept in the address. */
function ActivityLink({ activity }: { activity: Activity }) {
  const { search } = useLocation();
  return (
    <Link to={`/activities/${activity.id}${search}`}>{activity.subject ?? '(no subject)'}</Link>
  );
}

/** The records an activity is about: the lead and the contact link to their panels. */
export function About({ activity }: { activity: Activity }) {
  const parts = [
    activity.lead_id && (
      <Link key="lead" to={`/leads/${activity.lead_id}`}>
        Lead
      </Link>
    ),
    activity.contact_id && (
      <Link key="contact" to={`/contacts/${activity.contact_id}`}>
        Contact
      </Link>
    ),
    activity.deal_id && <span key="deal">Deal</span>,
  ].filter(Boolean);
  if (parts.length === 0) return <>—</>;
  return <>{parts.flatMap((part, index) => (index === 0 ? [part] : [', ', part]))}</>;
}
