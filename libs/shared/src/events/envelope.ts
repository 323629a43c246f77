import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { z } from 'zod';

/** `lead.imported`, `deal.created`, `email.replied`: lower-case dot-separated tokens (NATS-safe). */
export const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/** DESIGN.md (Events): the one envelope every event travels in, through outbox and bus. */
export const eventEnvelopeSchema = z.object({
  id: z.uuid(),
  type: z
    .string()
    .max(200)
    .regex(EVENT_TYPE, { message: 'expected dot-separated lower-case tokens' }),
  tenant_id: z.uuid(),
  occurred_at: z.iso.datetime({ offset: true }),
  record: z.object({
    module: z.string().min(1).max(100),
    id: z.string().min(1).max(200),
  }),
  data: z.record(z.string(), z.unknown()),
  /** W3C trace context of the writer, so consumers continue the same trace. */
  trace: z
    .object({ traceparent: z.string().optional(), tracestate: z.string().optional() })
    .default({}),
});

export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

export type EventInput = Omit<EventEnvelope, 'id' | 'occurred_at' | 'trace'> &
  Partial<Pick<EventEnvelope, 'id' | 'occurred_at' | 'trace'>>;

/** Completes an event with a new id, the current time and the active trace context. */
export function createEvent(input: EventInput): EventEnvelope {
  const trace: Record<string, string> = {};
  propagation.inject(context.active(), trace);
  return eventEnvelopeSchema.parse({
    id: randomUUID(),
    occurred_at: new Date().toISOString(),
    trace,
    ...input,
  });
}
