import type { Trx } from '../db/tenant-scope';
import { createEvent, type EventEnvelope, type EventInput } from './envelope';

/**
 * Records an event in `event_outbox` inside the caller's transaction, so the event exists
 * exactly when the data it describes does. The relay publishes it after commit; the bus being
 * down at write time loses nothing. Call it inside withTenant: the outbox row is tenant-owned.
 */
export async function writeEvent(trx: Trx, input: EventInput): Promise<EventEnvelope> {
  const event = createEvent(input);
  await trx
    .insertInto('event_outbox')
    .values({
      id: event.id,
      tenant_id: event.tenant_id,
      type: event.type,
      envelope: JSON.stringify(event),
    })
    .execute();
  return event;
}

/** Rows per INSERT statement when writing many events (stays far below the 65,535 parameters limit). */
const EVENTS_PER_STATEMENT = 2000;

/**
 * writeEvent for many events at once: set-based INSERTs (one per 2,000 events) in the caller's
 * transaction, in the order given. For bulk writes such as a 10,000-lead import.
 */
export async function writeEvents(trx: Trx, inputs: EventInput[]): Promise<EventEnvelope[]> {
  const events = inputs.map(createEvent);
  for (let start = 0; start < events.length; start += EVENTS_PER_STATEMENT) {
    const chunk = events.slice(start, start + EVENTS_PER_STATEMENT);
    await trx
      .insertInto('event_outbox')
      .values(
        chunk.map((e) => ({
          id: e.id,
          tenant_id: e.tenant_id,
          type: e.type,
          envelope: JSON.stringify(e),
        })),
      )
      .execute();
  }
  return events;
}
