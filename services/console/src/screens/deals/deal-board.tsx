import { useState } from 'react';
import { Link } from 'react-router';
import { DEAL_STAGES, type Deal, type DealStage } from '../../api/deals';
import { money, stageLabel } from './stages';

const DRAG_TYPE = 'application/x-crm-deal';

/**
 * The pipeline: a column per stage, a card per deal. A card moves by native drag and drop onto
 * another column, or from the keyboard with its own "Stage of <title>" select; without
 * `onMove` (a viewer) cards neither drag nor have the select. A card's title opens its form.
 */
export function DealBoard({
  deals,
  onMove,
}: {
  deals: Deal[];
  onMove?: (deal: Deal, stage: DealStage) => void;
}) {
  const [over, setOver] = useState<DealStage | null>(null);
  const move = (id: string, stage: DealStage) => {
    const deal = deals.find((d) => d.id === id);
    if (deal && deal.stage !== stage) onMove?.(deal, stage);
  };
  return (
    <div className="deal-board">
      {DEAL_STAGES.map((stage) => {
        const cards = deals.filter((deal) => deal.stage === stage);
        return (
          <section
            key={stage}
            aria-labelledby={`stage-${stage}`}
            className={over === stage ? 'deal-column deal-column-over' : 'deal-column'}
            data-stage={stage}
            onDragOver={(event) => {
              if (!onMove || !event.dataTransfer.types.includes(DRAG_TYPE)) return;
              event.preventDefault();
              event.dataTransfer.dropEffect = 'move';
              setOver(stage);
            }}
            onDragLeave={() => setOver((current) => (current === stage ? null : current))}
            onDrop={(event) => {
              event.preventDefault();
              setOver(null);
              move(event.dataTransfer.getData(DRAG_TYPE), stage);
            }}
          >
            <h2 id={`stage-${stage}`}>{stageLabel(stage)}</h2>
            <p className="muted deal-count">
              {cards.length} {cards.length === 1 ? 'deal' : 'deals'}
            </p>
            <ul>
              {cards.map((deal) => (
                <DealCard key={deal.id} deal={deal} onMove={onMove} />
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

function DealCard({
  deal,
  onMove,
}: {
  deal: Deal;
  onMove?: (deal: Deal, stage: DealStage) => void;
}) {
  return (
    <li
      className={onMove ? 'deal-card' : 'deal-card deal-card-fixed'}
      draggable={Boolean(onMove)}
      aria-label={deal.title}
      onDragStart={(event) => {
        event.dataTransfer.setData(DRAG_TYPE, deal.id);
        event.dataTransfer.effectAllowed = 'move';
      }}
    >
      <strong>
        <Link to={`/deals/list/${deal.id}`} draggable={false}>
          {deal.title}
        </Link>
      </strong>
      <span>{money(deal.value, deal.currency)}</span>
      {onMove && (
        <select
          aria-label={`Stage of ${deal.title}`}
          value={deal.stage}
          onChange={(event) => onMove(deal, event.target.value as DealStage)}
        >
          {DEAL_STAGES.map((stage) => (
            <option key={stage} value={stage}>
              {stageLabel(stage)}
            </option>
          ))}
        </select>
      )}
    </li>
  );
}
