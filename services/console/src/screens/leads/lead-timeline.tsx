import { useInfiniteQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { fetchLeadTimeline } from '../../api/leads';
import { Problem } from '../../ui/problem';
import { Empty, Loading } from '../../ui/states';
import { dateTime } from '../../ui/date-time';

const TYPE_LABELS: Record<string, string> = {
  form_submission: 'Form',
  deal: 'Deal',
  activity: 'Activity',
  email_sent: 'Email sent',
  email_open: 'Email opened',
  email_click: 'Email clicked',
  email_reply: 'Email reply',
  chat_message: 'Chat',
  call: 'Call',
  order: 'Order',
  payment: 'Payment',
};

/**
 * Everything that happened with the lead, newest first (GET /api/crm/leads/:id/timeline),
 * a page at a time: "Load more" asks for the next by the previous page's `nextCursor`.
 */
export function LeadTimeline({ leadId }: { leadId: string }) {
  const id = useId();
  const timeline = useInfiniteQuery({
    queryKey: ['lead-timeline', leadId],
    queryFn: ({ pageParam, signal }) => fetchLeadTimeline(leadId, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = timeline.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby={`${id}-title`} className="panel-section">
      <h3 id={`${id}-title`}>Timeline</h3>
      {timeline.isPending ? (
        <Loading what="the timeline" />
      ) : timeline.isError && items.length === 0 ? (
        <Problem error={timeline.error} onRetry={() => void timeline.refetch()} />
      ) : items.length === 0 ? (
        <Empty>
          <p>Nothing has happened with this lead yet.</p>
        </Empty>
      ) : (
        <>
          <ol className="timeline" aria-busy={timeline.isFetching}>
            {items.map((item) => (
              <li key={`${item.type}-${item.id}`}>
                <span className="timeline-type">{TYPE_LABELS[item.type] ?? item.type}</span>{' '}
                {item.summary}
                <br />
                <time dateTime={item.occurred_at} className="muted">
                  {dateTime(item.occurred_at)}
                </time>
              </li>
            ))}
          </ol>
          {timeline.isFetchNextPageError && (
            <Problem error={timeline.error} onRetry={() => void timeline.fetchNextPage()} />
          )}
          {timeline.hasNextPage && (
            <button
              type="button"
              disabled={timeline.isFetchingNextPage}
              onClick={() => void timeline.fetchNextPage()}
            >
              {timeline.isFetchingNextPage ? 'Loading more…' : 'Load more'}
            </button>
          )}
        </>
      )}
    </section>
  );
}
