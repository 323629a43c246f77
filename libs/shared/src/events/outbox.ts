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
