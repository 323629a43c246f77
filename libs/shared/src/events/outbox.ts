import { sql } from 'kysely';
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

/**
 * writeEvent for many events at once: one set-based INSERT over unnest() arrays in the
 * caller's transaction, in the order given. For bulk writes such as a 10,000-lead import.
 */
export async function writeEvents(trx: Trx, inputs: EventInput[]): Promise<EventEnvelope[]> {
  if (inputs.length === 0) return [];
  const events = inputs.map(createEvent);
  // One JSON array parameter: Postgres splits it (fast, in C), where encoding four 10,000-element
  // array parameters in the driver costs more than the insert itself.
  await sql`
    INSERT INTO event_outbox (id, tenant_id, type, envelope)
    SELECT (e->>'id')::uuid, (e->>'tenant_id')::uuid, e->>'type', e
      FROM jsonb_array_elements(${JSON.stringify(events)}::jsonb) WITH ORDINALITY AS t(e, n)
     ORDER BY n`.execute(trx);
  return events;
}
