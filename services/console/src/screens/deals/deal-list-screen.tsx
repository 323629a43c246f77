import { useId, useMemo, useState } from 'react';
import { Outlet } from 'react-router';
import { DEAL_STAGES, DEALS_BOARD_LIMIT } from '../../api/deals';
import { DataTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { dealColumns } from './deal-columns';
import { DealViews } from './deal-views';
import './deals.css';
import { stageLabel } from './stages';
import { useDealList, useOwners } from './use-deals';

/**
 * The deals as a table (GET /api/crm/deals, newest first) filtered by stage and owner (the
 * list's `stage` and `assigned_to`); a deal's title opens its form beside the table.
 */
export function DealListScreen() {
  const id = useId();
  const [stage, setStage] = useState('');
  const [owner, setOwner] = useState('');
  const { owners, name } = useOwners();
  const deals = useDealList({ stage, assigned_to: owner });
  const columns = useMemo(() => dealColumns(name), [name]);
  const rows = deals.data ?? [];
  return (
    <section aria-labelledby="screen-title" className="deals">
      <h1 id="screen-title">Deals</h1>
      <DealViews />
      <form
        role="search"
        aria-label="Deal filters"
        className="filters"
        onSubmit={(event) => event.preventDefault()}
      >
        <label htmlFor={`${id}-stage`}>Stage</label>
        <select id={`${id}-stage`} value={stage} onChange={(event) => setStage(event.target.value)}>
          <option value="">Any stage</option>
          {DEAL_STAGES.map((value) => (
            <option key={value} value={value}>
              {stageLabel(value)}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-owner`}>Owner</label>
        <select id={`${id}-owner`} value={owner} onChange={(event) => setOwner(event.target.value)}>
          <option value="">Anyone</option>
          {owners.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </form>
      <div className="records-body">
        <div className="records-list" aria-busy={deals.isFetching}>
          <QueryStates
            query={deals}
            what="deals"
            isEmpty={() => rows.length === 0}
            empty={
              <p>
                {stage || owner
                  ? 'No deal matches these filters.'
                  : 'No deals yet. Add one on the board.'}
              </p>
            }
          >
            {() => (
              <>
                <p role="status" className="muted">
                  {rows.length === DEALS_BOARD_LIMIT
                    ? `The newest ${rows.length} deals shown`
                    : `${rows.length} ${rows.length === 1 ? 'deal' : 'deals'}`}
                </p>
                <DataTable
                  label="Deals list"
                  rows={rows}
                  columns={columns}
                  total={rows.length}
                  sorting={[]}
                  onSortingChange={() => undefined}
                  hasMore={false}
                  loadMore={() => undefined}
                />
              </>
            )}
          </QueryStates>
        </div>
        <Outlet />
      </div>
    </section>
  );
}
