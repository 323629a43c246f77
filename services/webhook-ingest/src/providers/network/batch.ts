import { sha256Hex } from '@crm/shared/crypto';
import { storableTimestamp, unprocessable } from '@crm/shared/inbound';
import { activityKindOf, type NetworkActivityKind } from './activity-kinds';

/** Largest number of events one delivery may carry; more is refused with 400, nothing written. */
export const MAX_EVENTS_PER_DELIVERY = 5000;
/** The 400s of a delivery that is none of the accepted shapes (network.schema.ts says the same). */
export const NETWORK_BATCH_ERRORS = {
  notAShape: 'The body must be an event object, { events: [...] } or an array of events',
  eventsNotAnArray: '`events` must be an array of events',
  tooManyEvents: `A delivery may carry at most ${MAX_EVENTS_PER_DELIVERY} events`,
} as const;
const MAX_ID_LENGTH = 200;

/** One supported event, normalised for `network_events` and ready to match to an account. */
export interface NetworkActivity {
  externalAccountId: string;
  externalEventId: string | null;
  kind: NetworkActivityKind;
  eventType: string;
  /** The event's actor as sent, or null when it names none. */
  actor: unknown;
  occurredAt: Date | null;
  /** The whole event as sent (serialised once, with the rest of its insert statement). */
  payload: Record<string, unknown>;
}

export interface ClassifiedBatch {
  activities: NetworkActivity[];
  /** Not an object, or a `type` missing from the mapping table. */
  unsupported: number;
  /** A supported event that names no account id (it can match no account). */
  withoutAccount: number;
  /** The ledger's event type: the event's type, or `batch` for a batch delivery. */
  eventType: string | null;
  /** The claim whose verification URL the delivery was sent to, if any (set by the receiver). */
  proofToken?: string;
}

/**
 * The delivery's events. A partner sends one event object, `{ events: [...] }`, or a top-level
 * array; all three are accepted. Any other JSON (a string, a number, `events` that is not an
 * array) or more than MAX_EVENTS_PER_DELIVERY events is a 400.
 */
export function eventsOf(body: unknown): { events: unknown[]; isBatch: boolean } {
  let events: unknown[];
  let isBatch = true;
  if (Array.isArray(body)) events = body;
  else if (isObject(body) && 'events' in body) {
    if (!Array.isArray(body.events)) throw unprocessable(NETWORK_BATCH_ERRORS.eventsNotAnArray);
    events = body.events;
  } else if (isObject(body)) {
    events = [body];
    isBatch = false;
  } else {
    throw unprocessable(NETWORK_BATCH_ERRORS.notAShape);
  }
  if (events.length > MAX_EVENTS_PER_DELIVERY) {
    throw unprocessable(NETWORK_BATCH_ERRORS.tooManyEvents, {
      limit: MAX_EVENTS_PER_DELIVERY,
      received: events.length,
    });
  }
  return { events, isBatch };
}

/**
 * Splits a delivery's events into activities and the counts of those it drops. `body` comes
 * from parseJsonBody, so its strings and keys are already storable and its depth bounded.
 * This is networkDeliverySchema and networkEventSchema (network.schema.ts) written out by hand
 * for the hot path; a property test holds the two to one verdict.
 */
export function classifyBatch(body: unknown): ClassifiedBatch {
  const { events, isBatch } = eventsOf(body);
  const batch: ClassifiedBatch = {
    activities: [],
    unsupported: 0,
    withoutAccount: 0,
    eventType: isBatch ? 'batch' : typeOf(events[0]),
  };
  for (const event of events) {
    const kind = isObject(event) ? activityKindOf(event.type) : undefined;
    if (!isObject(event) || !kind) {
      batch.unsupported += 1;
      continue;
    }
    const externalAccountId = idOf(event.account_id);
    if (externalAccountId === null) {
      batch.withoutAccount += 1;
      continue;
    }
    batch.activities.push({
      externalAccountId,
      externalEventId: idOf(event.id),
      kind,
      eventType: event.type as string,
      actor: event.actor ?? null,
      occurredAt: storableTimestamp(event.occurred_at),
      payload: event,
    });
  }
  return batch;
}

function typeOf(event: unknown): string | null {
  const type = isObject(event) ? event.type : undefined;
  return typeof type === 'string' ? type.slice(0, MAX_ID_LENGTH) : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A partner id (string or number) as stored text; absent or empty -> null. Ids longer than 200
 * are digested: a unique index cannot hold an arbitrarily long key, and equal ids still collide.
 */
function idOf(value: unknown): string | null {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
    return null;
  }
  const id = String(value).trim();
  if (id === '') return null;
  return id.length <= MAX_ID_LENGTH ? id : `sha256:${sha256Hex(id)}`;
}
