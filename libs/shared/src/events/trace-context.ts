import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
} from '@opentelemetry/api';
import { runInSpan } from '../telemetry/run-in-span';
import type { EventEnvelope } from './event-envelope';

/**
 * Trace context across the outbox and the bus: the writer's W3C context is
 * stored in the envelope (createEvent), carried in the NATS message headers as well (so tools
 * that read headers see it), and every consumer runs its handler in a span whose parent is that
 * context. Without a registered OpenTelemetry SDK all of this is the API's no-op.
 */
const tracer = trace.getTracer('@crm/shared/events');

const envelopeTrace: TextMapGetter<EventEnvelope['trace']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (carrier as Record<string, string | undefined>)[key],
};

/** The W3C headers of the event's writer (`traceparent`, `tracestate`), for a message's headers. */
export function traceHeadersOf(event: EventEnvelope): [string, string][] {
  return Object.entries(event.trace).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
}

/**
 * Runs a consumer's handler in a `process <type>` span (kind CONSUMER) that continues the trace
 * of whoever wrote the event, whatever context the bus happens to be running in.
 */
export function inConsumerSpan<T>(
  event: EventEnvelope,
  consumer: string,
  attempt: number,
  handler: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, event.trace, envelopeTrace);
  const span = tracer.startSpan(
    `process ${event.type}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.operation.type': 'process',
        'messaging.consumer.group.name': consumer,
        'messaging.message.id': event.id,
        'crm.event.type': event.type,
        'crm.event.attempt': attempt,
        'crm.tenant.id': event.tenant_id,
      },
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => runInSpan(span, handler));
}

export interface PublishSpans {
  /** Ends every span of the round; `failed` marks them as errors. */
  end(failed: boolean): void;
}

/**
 * The relay's publish of one round, in the writers' traces: a `publish` span (kind PRODUCER) per
 * writer context among the round's events, a child of that context. One span per writer and
 * round rather than per event: a 10,000-lead import is one writer context whose events leave in
 * about ten rounds, so ten spans, not 10,000 that would overflow the exporter's queue.
 */
export function startPublishSpans(events: readonly EventEnvelope[]): PublishSpans {
  const byWriter = new Map<string, EventEnvelope[]>();
  for (const event of events) {
    const writer = event.trace.traceparent;
    if (!writer) continue;
    const group = byWriter.get(writer);
    if (group) group.push(event);
    else byWriter.set(writer, [event]);
  }
  const spans = [...byWriter.values()].map((group) => {
    const types = [...new Set(group.map((event) => event.type))];
    return tracer.startSpan(
      types.length === 1 ? `publish ${types[0]}` : 'publish',
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'send',
          'messaging.batch.message_count': group.length,
          'crm.event.types': types,
        },
      },
      propagation.extract(ROOT_CONTEXT, group[0].trace, envelopeTrace),
    );
  });
  return {
    end(failed) {
      for (const span of spans) {
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    },
  };
}
