import { sql } from 'kysely';
import type { Trx } from '../db/tenant-scope';
import { createEvent, createEvents, type EventEnvelope, type EventInput } from './event-envelope';

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

/** Fewer events than this go in one row each; more go in batch rows. */
export const OUTBOX_BATCH_MIN = 100;
/** Events per batch row at most (the relay publishes a row whole). */
export const OUTBOX_BATCH_MAX = 1000;

/**
 * writeEvent for many events at once: one set-based INSERT in the caller's transaction, in the
 * order given. A bulk write of one tenant (a 10,000-lead import, a network batch) is stored as
 * batch rows of up to OUTBOX_BATCH_MAX events each (an envelope array; the relay publishes each
 * event of it as its own message), so Postgres stores rows by the thousand events, not one each.
 */
export async function writeEvents(trx: Trx, inputs: EventInput[]): Promise<EventEnvelope[]> {
  if (inputs.length === 0) return [];
  const events = createEvents(inputs);
  const tenantId = events[0].tenant_id;
  const oneTenant = events.every((e) => e.tenant_id === tenantId);
  if (oneTenant && events.length >= OUTBOX_BATCH_MIN) {
    await insertBatchRows(trx, tenantId, events);
    return events;
  }
  // The envelopes travel as one JSON array, split by Postgres (in C) into `json` values that are
  // stored as sent; ids, types and tenants come alongside as comma-joined lists (uuids and event
  // types have no commas), so no envelope is parsed twice. Within withTenant every event has the
  // caller's tenant: then the tenant list is left empty (its column is NULL) and the one tenant
  // id is used for every row.
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

async function insertBatchRows(trx: Trx, tenantId: string, events: EventEnvelope[]): Promise<void> {
  const batches: EventEnvelope[][] = [];
  for (let start = 0; start < events.length; start += OUTBOX_BATCH_MAX) {
    batches.push(events.slice(start, start + OUTBOX_BATCH_MAX));
  }
  const typeOf = (batch: EventEnvelope[]) =>
    batch.every((e) => e.type === batch[0].type) ? batch[0].type : 'batch';
  await sql`
    INSERT INTO event_outbox (id, tenant_id, type, envelope, event_count)
    SELECT t.id, ${tenantId}::uuid, t.type, t.envelope, json_array_length(t.envelope)
      FROM ROWS FROM (
             json_array_elements(${JSON.stringify(batches)}::json),
             unnest(string_to_array(${batches.map((b) => b[0].id).join(',')}, ',')::uuid[]),
             unnest(string_to_array(${batches.map(typeOf).join(',')}, ','))
           ) WITH ORDINALITY AS t(envelope, id, type, n)
     ORDER BY t.n`.execute(trx);
}

/** The events an outbox row carries, in order: its envelope, or each of its batch. */
export function eventsOfRow(envelope: unknown): EventEnvelope[] {
  return (Array.isArray(envelope) ? envelope : [envelope]) as EventEnvelope[];
}
