/**
 * The network receiver's SQL: a tenant's `network_events`, written under the tenant's
 * row-level security (the delivery's asTenant scope). The accounts' tenants are found before,
 * in the system scope (tenancy/cross-tenant-lookups.ts).
 */
import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';
import type { NetworkActivity } from './batch';

/** An activity matched to the tenant's account it is stored under. */
export type AccountActivity = NetworkActivity & { accountId: string };

export interface StoredNetworkEvent {
  id: string;
  account_id: string;
  external_event_id: string | null;
  kind: string;
  event_type: string;
  occurred_at: string | Date | null;
}

/**
 * Inserts one tenant's activities in one statement, in their order; RETURNING yields the
 * inserted rows in that order, skipping an event already stored for the account (same partner
 * id), also within the statement. The rows travel as one JSON document (one native
 * JSON.stringify per statement) rather than as a parameter per value.
 */
export async function insertNetworkEvents(
  trx: Trx,
  tenantId: string,
  activities: readonly AccountActivity[],
): Promise<StoredNetworkEvent[]> {
  const { rows } = await sql<StoredNetworkEvent>`
    INSERT INTO network_events
           (tenant_id, account_id, external_event_id, kind, event_type, actor, occurred_at, payload)
    SELECT ${tenantId}::uuid, r.account_id, r.external_event_id, r.kind, r.event_type,
           r.actor, r.occurred_at, r.payload
      FROM ROWS FROM (
             json_to_recordset(${rowsJson(activities)}::json)
               AS (account_id uuid, external_event_id text, kind text, event_type text,
                   actor jsonb, occurred_at timestamptz, payload jsonb)
           ) WITH ORDINALITY
           AS r(account_id, external_event_id, kind, event_type, actor, occurred_at, payload, n)
     ORDER BY r.n
    -- A redelivered event (same partner id for the account) is skipped, also within a batch.
    ON CONFLICT (account_id, external_event_id) WHERE external_event_id IS NOT NULL DO NOTHING
    RETURNING id, account_id, external_event_id, kind, event_type, occurred_at`.execute(trx);
  return rows;
}

/** The rows as one JSON array, in the columns json_to_recordset reads. */
function rowsJson(activities: readonly AccountActivity[]): string {
  return JSON.stringify(
    activities.map((a) => ({
      account_id: a.accountId,
      external_event_id: a.externalEventId,
      kind: a.kind,
      event_type: a.eventType,
      actor: a.actor,
      occurred_at: a.occurredAt,
      payload: a.payload,
    })),
  );
}
