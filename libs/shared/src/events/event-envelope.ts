import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { z } from 'zod';

/** `lead.imported`, `deal.created`, `email.replied`: lower-case dot-separated tokens (NATS-safe). */
export const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/** The one envelope every event travels in, through outbox and bus. */
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

const {
  type: typeSchema,
  tenant_id: tenantIdSchema,
  trace: traceSchema,
} = eventEnvelopeSchema.shape;

/**
 * createEvent for a batch, with the same envelopes and the same checks: a bulk write repeats a
 * few types and tenants, so each distinct one is checked by the schema once, and the per-event
 * rest (record, data) is checked inline. An input this fast path does not vouch for (own id,
 * time or trace, an odd record or data object, a value the schema rejects) goes through
 * createEvent, so it gets exactly createEvent's result or ZodError, first bad input first.
 */
export function createEvents(inputs: readonly EventInput[]): EventEnvelope[] {
  const injected: Record<string, string> = {};
  propagation.inject(context.active(), injected);
  const trace = traceSchema.parse(injected);
  const goodTypes = new Set<string>();
  const goodTenants = new Set<string>();
  let lastMs = NaN;
  let occurredAt = '';
  const fast = (input: EventInput): EventEnvelope | undefined => {
    if (!plainObject(input) || 'id' in input || 'occurred_at' in input || 'trace' in input) return;
    const record = plainObject(input.record);
    const data = plainObject(input.data) && recordCopy(input.data);
    if (
      !record ||
      !data ||
      !text(record.module, 100) ||
      !text(record.id, 200) ||
      !checked(goodTypes, typeSchema, input.type) ||
      !checked(goodTenants, tenantIdSchema, input.tenant_id)
    ) {
      return;
    }
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      occurredAt = new Date(now).toISOString();
    }
    // Keys in the order eventEnvelopeSchema outputs them.
    return {
      id: randomUUID(),
      type: input.type,
      tenant_id: input.tenant_id,
      occurred_at: occurredAt,
      record: { module: record.module as string, id: record.id as string },
      data,
      trace: { ...trace },
    };
  };
  return inputs.map((input) => fast(input) ?? createEvent(input));
}

function checked(good: Set<string>, schema: z.ZodType, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (good.has(value)) return true;
  if (!schema.safeParse(value).success) return false;
  good.add(value);
  return true;
}

function text(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max;
}

function plainObject(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.getPrototypeOf(value) === Object.prototype
    ? (value as Record<string, unknown>)
    : undefined;
}

/** What z.record(z.string(), z.unknown()) makes of a plain object; undefined when it would differ or fail. */
function recordCopy(data: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.getOwnPropertySymbols(data).length > 0) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    if (key === '__proto__') return undefined;
    copy[key] = data[key];
  }
  return copy;
}
