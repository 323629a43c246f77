import { randomUUID } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { connect, type NatsConnection } from 'nats';
import {
  createEvent,
  InProcessBus,
  NatsBus,
  type EventBus,
  type EventEnvelope,
} from '@crm/shared/events';
import { captureLogger, eventually, natsUrlForTests } from '@crm/shared/testing';

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager().enable();

beforeAll(() => {
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const { logger } = captureLogger();

/** Writes an event inside a producer span, as a route handler inside an HTTP span would. */
function eventFromAProducerSpan(): { event: EventEnvelope; traceId: string; spanId: string } {
  const span = trace.getTracer('test').startSpan('POST /api/v1/import/leads');
  const event = context.with(trace.setSpan(context.active(), span), () =>
    createEvent({
      type: 'lead.created',
      tenant_id: randomUUID(),
      record: { module: 'leads', id: randomUUID() },
      data: {},
    }),
  );
  span.end();
  const { traceId, spanId } = span.spanContext();
  return { event, traceId, spanId };
}

async function expectHandlerContinuesTheTrace(bus: EventBus): Promise<void> {
  const seen: Array<{ traceId?: string; spanId?: string }> = [];
  await bus.subscribe({
    durable: `tracing_${randomUUID().slice(0, 8)}`,
    handler: async () => {
      const active = trace.getActiveSpan()?.spanContext();
      seen.push({ traceId: active?.traceId, spanId: active?.spanId });
    },
  });
  const producer = eventFromAProducerSpan();
  expect(producer.event.trace.traceparent).toContain(producer.traceId);
  await bus.publish(producer.event);
  await eventually(() => expect(seen).toHaveLength(1));
  expect(seen[0].traceId).toBe(producer.traceId);
  const consumerSpan = exporter
    .getFinishedSpans()
    .find((span) => span.name === 'process lead.created');
  expect(consumerSpan?.spanContext().traceId).toBe(producer.traceId);
  expect(consumerSpan?.parentSpanContext?.spanId).toBe(producer.spanId);
  expect(seen[0].spanId).toBe(consumerSpan?.spanContext().spanId);
}

describe('a consumer continues the trace of the event it handles', () => {
  it('in-process bus: the handler runs in a child span of the writer', async () => {
    const bus = new InProcessBus({ logger });
    try {
      await expectHandlerContinuesTheTrace(bus);
    } finally {
      await bus.close();
    }
  });

  const natsUrl = natsUrlForTests();
  (natsUrl ? it : it.skip)(
    'NATS JetStream: the message carries traceparent in its headers, and the handler continues it',
    async () => {
      const unique = randomUUID().replace(/-/g, '').slice(0, 12);
      const streamName = `TEST_TRACE_${unique}`;
      const bus = await NatsBus.connect({
        url: natsUrl as string,
        logger,
        streamName,
        subjectPrefix: `test_trace_${unique}.events`,
      });
      let raw: NatsConnection | undefined;
      try {
        await expectHandlerContinuesTheTrace(bus);
        raw = await connect({ servers: natsUrl });
        const stored = await (
          await raw.jetstreamManager()
        ).streams.getMessage(streamName, {
          seq: 1,
        });
        const sent = JSON.parse(new TextDecoder().decode(stored.data)) as EventEnvelope;
        expect(stored.header?.get('traceparent')).toBe(sent.trace.traceparent);
        expect(sent.trace.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      } finally {
        await raw?.close();
        await bus.deleteStream();
        await bus.close();
      }
    },
  );
});
