import type { SortingState } from '@tanstack/react-table';
import { useCallback, useId, useMemo, useState } from 'react';
import { Link, Outlet, useLocation, useSearchParams } from 'react-router';
import { INBOUND_OUTCOMES, type DeliveryQuery } from '../../api/integrations';
import { LoadedTable } from '../../ui/data-table';
import { QueryStates } from '../../ui/states';
import { deliveryColumns } from './delivery-columns';
import { useDeliveries } from './use-integrations';

/** The ledger's provider keys a workspace's deliveries carry (docs/webhooks.md). */
const PROVIDERS = [
  'storefront_a',
  'storefront_b',
  'payments_stripe',
  'payments_razorpay',
  'payments_paddle',
  'payments_lemonsqueezy',
  'messaging',
  'network',
  'telephony',
  'email',
  'billing',
];

/** A datetime-local value (the browser's time zone) as an ISO instant; '' stays ''. */
const instant = (local: string) => (local ? new Date(local).toISOString() : '');

/**
 * The inbound delivery log: the workspace's ledger rows, newest first, filtered by provider,
 * outcome and received time (kept in the address, so a filtered view can be shared), loading
 * more by cursor as it scrolls; a delivery opens in the panel beside it.
 */
export function DeliveriesScreen() {
  const id = useId();
  const { search } = useLocation();
  const [params, setParams] = useSearchParams();
  const [sorting, setSorting] = useState<SortingState>([{ id: 'received_at', desc: true }]);
  const provider = params.get('provider') ?? '';
  const outcome = params.get('outcome') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const query: DeliveryQuery = useMemo(
    () => ({ provider, outcome, from: instant(from), to: instant(to) }),
    [provider, outcome, from, to],
  );
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const deliveries = useDeliveries(query);
  const pages = deliveries.data?.pages;
  const rows = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const columns = useMemo(() => deliveryColumns(search), [search]);
  const filtered = Boolean(provider || outcome || from || to);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = deliveries;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <section aria-labelledby="screen-title">
      <div className="screen-head">
        <h1 id="screen-title">Delivery log</h1>
        <Link to="/integrations">Integrations</Link>
      </div>
      <form className="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <ChoiceFilter
          id={`${id}-provider`}
          label="Provider"
          any="Any provider"
          choices={PROVIDERS}
          value={provider}
          onChange={(value) => set('provider', value)}
        />
        <ChoiceFilter
          id={`${id}-outcome`}
          label="Outcome"
          any="Any outcome"
          choices={INBOUND_OUTCOMES}
          value={outcome}
          onChange={(value) => set('outcome', value)}
        />
        <div className="field">
          <label htmlFor={`${id}-from`}>Received from</label>
          <input
            id={`${id}-from`}
            type="datetime-local"
            value={from}
            onChange={(e) => set('from', e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`}>Received before</label>
          <input
            id={`${id}-to`}
            type="datetime-local"
            value={to}
            onChange={(e) => set('to', e.target.value)}
          />
        </div>
      </form>
      <div className="records-body">
        <div className="records-list" aria-busy={deliveries.isFetching}>
          <QueryStates
            query={deliveries}
            what="deliveries"
            isEmpty={() => rows.length === 0}
            empty={
              <p>
                {filtered
                  ? 'No delivery matches these filters.'
                  : 'No deliveries yet. Register a receiver URL from Integrations at your provider; its deliveries show here.'}
              </p>
            }
          >
            {() => (
              <LoadedTable
                noun="deliveries"
                of={total}
                loadingMore={isFetchingNextPage}
                label="Deliveries list"
                rows={rows}
                columns={columns}
                total={total}
                sorting={sorting}
                onSortingChange={setSorting}
                hasMore={Boolean(hasNextPage)}
                loadMore={loadMore}
              />
            )}
          </QueryStates>
        </div>
        <Outlet />
      </div>
    </section>
  );
}

/** A labelled select of one filter: "any" (empty) or one of `choices`. */
function ChoiceFilter(props: {
  id: string;
  label: string;
  any: string;
  choices: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">{props.any}</option>
        {props.choices.map((key) => (
          <option key={key} value={key}>
            {key}
          </option>
        ))}
      </select>
    </div>
  );
}
