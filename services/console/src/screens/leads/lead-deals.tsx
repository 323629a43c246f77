import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router';
import { fetchDeals } from '../../api/deals';
import { QueryStates } from '../../ui/states';
import { money, stageLabel } from '../deals/stages';

/**
 * The lead's deals (GET /api/crm/deals?lead_id=), newest first; each opens in the deals list.
 * Its key is under `deals`, so a change to any deal asks for it again.
 */
export function LeadDeals({ leadId }: { leadId: string }) {
  const id = useId();
  const deals = useQuery({
    queryKey: ['deals', 'lead', leadId],
    queryFn: ({ signal }) => fetchDeals(signal, { lead_id: leadId }),
    select: (body) => body.deals,
  });
  return (
    <section aria-labelledby={`${id}-title`} className="panel-section">
      <h3 id={`${id}-title`}>Deals</h3>
      <QueryStates
        query={deals}
        what="the lead's deals"
        isEmpty={(data) => data.length === 0}
        empty={<p>No deal for this lead yet.</p>}
      >
        {(data) => (
          <ul className="panel-list">
            {data.map((deal) => (
              <li key={deal.id}>
                <Link to={`/deals/list/${deal.id}`}>{deal.title}</Link>{' '}
                <span className="muted">
                  {stageLabel(deal.stage)}, {money(deal.value, deal.currency)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </QueryStates>
    </section>
  );
}
