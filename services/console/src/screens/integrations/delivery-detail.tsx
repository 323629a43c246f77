import { useEffect, useRef } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { isReprocessable, type InboundEventDetail } from '../../api/integrations';
import { canManage, useRole } from '../../session/use-role';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';
import { useDelivery, useReprocess } from './use-integrations';

const FIELDS: Array<[keyof InboundEventDetail, string]> = [
  ['provider', 'Provider'],
  ['event_type', 'Event'],
  ['delivery_id', 'Delivery id'],
  ['verification', 'Verification'],
  ['outcome', 'Outcome'],
  ['detail', 'Detail'],
  ['attempts', 'Attempts'],
  ['received_at', 'Received'],
  ['processed_at', 'Processed'],
  ['content_type', 'Content type'],
];

/** A raw payload, pretty-printed when it is JSON, else as received. */
function payloadText(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/**
 * One delivery (GET /api/integrations/inbound-events/:id, owners and admins): its verification
 * and outcome, its headers as stored (signature and secret-like values redacted), its raw
 * payload; a delivery that failed after verification can be re-processed from here.
 */
export function DeliveryDetail() {
  const { eventId = '' } = useParams();
  const { search } = useLocation();
  const manage = canManage(useRole().role);
  const heading = useRef<HTMLHeadingElement>(null);
  const delivery = useDelivery(eventId);
  const reprocess = useReprocess(eventId);
  useEffect(() => heading.current?.focus(), [eventId]);
  useEffect(() => reprocess.reset(), [eventId]);
  const event = delivery.data;
  return (
    <aside className="detail delivery-detail" aria-labelledby="delivery-title">
      <h2 id="delivery-title" ref={heading} tabIndex={-1}>
        {event ? `${event.provider} delivery` : 'Delivery'}
      </h2>
      <QueryStates query={delivery} what="the delivery">
        {(data) => (
          <>
            <dl>
              {FIELDS.map(([field, label]) => (
                <div key={field}>
                  <dt>{label}</dt>
                  <dd>{show(field, data[field])}</dd>
                </div>
              ))}
            </dl>
            {manage && isReprocessable(data) && (
              <p>
                <button
                  type="button"
                  disabled={reprocess.isPending}
                  onClick={() => reprocess.mutate()}
                >
                  {reprocess.isPending ? 'Re-processing…' : 'Re-process'}
                </button>
              </p>
            )}
            <p role="status" className="muted">
              {reprocess.isSuccess ? reprocess.data.message : ''}
            </p>
            {reprocess.isError && (
              <p role="alert" className="problem-inline">
                {describeError(reprocess.error)}
              </p>
            )}
            <h3>Headers</h3>
            {data.headers ? (
              <table className="headers">
                <thead>
                  <tr>
                    <th scope="col">Header</th>
                    <th scope="col">Value</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(data.headers).map(([name, value]) => (
                    <tr key={name}>
                      <td>
                        <code>{name}</code>
                      </td>
                      <td>{value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="muted">
                {data.raw_body === null
                  ? 'No longer kept: headers and payload are removed after the retention period.'
                  : 'Not recorded (the delivery predates the ledger keeping headers).'}
              </p>
            )}
            <h3>Raw payload</h3>
            {data.raw_body === null ? (
              <p className="muted">
                No longer kept: payloads are removed after the retention period (30 days by
                default); the delivery's outcome stays.
              </p>
            ) : (
              <pre className="payload" tabIndex={0} aria-label="Raw payload">
                {payloadText(data.raw_body)}
              </pre>
            )}
          </>
        )}
      </QueryStates>
      <Link to={`/integrations/deliveries${search}`}>Close</Link>
    </aside>
  );
}

function show(field: keyof InboundEventDetail, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'received_at' || field === 'processed_at')
    return new Date(String(value)).toLocaleString();
  return String(value);
}
