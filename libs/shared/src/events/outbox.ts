import { sql } from 'kysely';
import type { Trx } from '../db/tenant-scope';
import { createEvent, createEvents, type EventEnvelope, type EventInput } from './envelope';

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
 * writeEvent for many events at once: one set-based INSERT in the caller's transaction, in the
 * order given. For bulk writes such as a 10,000-lead import.
 */
export async function writeEvents(trx: Trx, inputs: EventInput[]): Promise<EventEnvelope[]> {
  if (inputs.length === 0) return [];
  const events = createEvents(inputs);
  const tenantId = events[0].tenant_id;
  const oneTenant = events.every((e) => e.tenant_id === tenantId);
  // The envelopes travel as one JSON array, split by Postgres (in C) into `json` values that are
  // stored as sent; ids, types and tenants come alongside as comma-joined lists (uuids and event
  // types have no commas), so no envelope is parsed twice. Within withTenant every event has the
  // caller's tenant: then the tenant list is left empty (its column is NULL) and the one tenant
  // id is used for every row. Encoding 10,000-element array parameters in the driver would cost
  // more than the insert itself.
  await sql`
    INSERT INTO event_outbox (id, tenant_id, type, envelope)
    SELECT t.id, coalesce(t.tenant_id, ${tenantId}::uuid), t.type, t.envelope
      FROM ROWS FROM (
             json_array_elements(${JSON.stringify(events)}::json),
             unnest(string_to_array(${events.map((e) => e.id).join(',')}, ',')::uuid[]),
             unnest(string_to_array(${events.map((e) => e.type).join(',')}, ',')),
             unnest(string_to_array(${oneTenant ? '' : events.map((e) => e.tenant_id).join(',')}, ',')::uuid[])
           ) WITH ORDINALITY AS t(envelope, id, type, tenant_id, n)
     ORDER BY t.n`.execute(trx);
  return events;
}
