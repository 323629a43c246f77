import type { Deal, DealStage } from '../../api/deals';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';
import { DealBoard } from './deal-board';
import { DealForm } from './deal-form';
import './deals.css';
import { stageLabel } from './stages';
import { useDeals, useMoveDeal } from './use-deals';
import { DealViews } from './deal-views';
import { useRole } from '../../session/use-role';

/**
 * Deals: the pipeline board by stage (drag a card, or pick its stage) and a form for a new one;
 * a viewer sees the board without either.
 */
export function DealsScreen() {
  const { canWrite } = useRole();
  const deals = useDeals();
  const move = useMoveDeal();
  const onMove = (deal: Deal, stage: DealStage) => move.mutate({ deal, stage });
  return (
    <section aria-labelledby="screen-title" className="deals">
      <h1 id="screen-title">Deals</h1>
      <DealViews />
      {canWrite && <DealForm />}
      {move.isError && (
        <p role="alert" className="problem">
          Could not move “{move.variables.deal.title}” to {stageLabel(move.variables.stage)}:{' '}
          {describeError(move.error)}
        </p>
      )}
      <div aria-busy={deals.isFetching}>
        <QueryStates
          query={deals}
          what="deals"
          isEmpty={(data) => data.length === 0}
          empty={
            <p>
              {canWrite ? 'No deals yet. Add the first one with the form above.' : 'No deals yet.'}
            </p>
          }
        >
          {(data) => <DealBoard deals={data} onMove={canWrite ? onMove : undefined} />}
        </QueryStates>
      </div>
    </section>
  );
}
