import type { Deal, DealStage } from '../../api/deals';
import { describeError } from '../../ui/describe-error';
import { Problem } from '../../ui/problem';
import { Empty, Loading } from '../../ui/states';
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
        {deals.isPending ? (
          <Loading what="deals" />
        ) : deals.isError ? (
          <Problem error={deals.error} onRetry={() => void deals.refetch()} />
        ) : deals.data.length === 0 ? (
          <Empty>
            <p>
              {canWrite ? 'No deals yet. Add the first one with the form above.' : 'No deals yet.'}
            </p>
          </Empty>
        ) : (
          <DealBoard deals={deals.data} onMove={canWrite ? onMove : undefined} />
        )}
      </div>
    </section>
  );
}
