import type { InboundOutcome, InboundVerification, Trx } from '@crm/shared/db';
import { sql } from 'kysely';

/*
 * Every statement of the `inbound_events` ledger's write path (record-delivery.ts alone,
 * record-deliveries.ts in groups). This is every delivery's hot path: each function is one
 * statement, and the callers decide how many run per delivery.
 */

/** A delivery's columns as it is claimed (record-delivery.ts builds them: ledgerValues). */
export interface LedgerValues {
  provider: string;
  delivery_id: string;
  event_type: string | null;
  content_type: string | null;
  raw_body: string;
  /** The redacted headers as JSON text, or null (a re-processing sends none). */
  headers: string | null;
  verification: InboundVerification;
  outcome: InboundOutcome;
}

/** What a handler's outcome writes into its ledger row. */
export interface LedgerOutcome {
  outcome: InboundOutcome;
  tenant_id: string | null;
  detail: string | null;
}

/**
 * The claim of deliveries (distinct ids): a new one is inserted as `failed` until its outcome
 * is recorded in the same transaction; a failed one is claimed again (attempts + 1); one
 * recorded otherwise is left alone and returns no row (a redelivery).
 */
function claimStatement(trx: Trx, rows: LedgerValues[]) {
  return trx
    .insertInto('inbound_events')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['provider', 'delivery_id'])
        .doUpdateSet((eb) => ({
          attempts: sql`${eb.ref('inbound_events.attempts')} + 1`,
          raw_body: eb.ref('excluded.raw_body'),
          // A re-processing sends no headers: the original's stay.
          headers: sql`coalesce(${eb.ref('excluded.headers')}, ${eb.ref('inbound_events.headers')})`,
          verification: eb.ref('excluded.verification'),
          received_at: sql`now()`,
        }))
        .where('inbound_events.outcome', '=', 'failed'),
    );
}

/** Claims one delivery; its ledger id, or undefined when it is already recorded. */
export async function claimDelivery(trx: Trx, row: LedgerValues): Promise<string | undefined> {
  const claimed = await claimStatement(trx, [row]).returning('id').executeTakeFirst();
  return claimed?.id;
}

/** Claims a group's deliveries in one statement; delivery id -> ledger id of the claimed. */
export async function claimDeliveries(
  trx: Trx,
  rows: LedgerValues[],
): Promise<Map<string, string>> {
  const claimed = await claimStatement(trx, rows).returning(['id', 'delivery_id']).execute();
  return new Map(claimed.map((row) => [row.delivery_id, row.id]));
}

/** Records one claimed delivery's outcome. */
export async function recordOutcome(
  trx: Trx,
  ledgerId: string,
  outcome: LedgerOutcome,
): Promise<void> {
  await trx
    .updateTable('inbound_events')
    .set({
      outcome: outcome.outcome,
      tenant_id: outcome.tenant_id,
      detail: outcome.detail,
      processed_at: new Date(),
    })
    .where('id', '=', ledgerId)
    .execute();
}

/** Records the outcomes of a group's claimed deliveries in one statement. */
export async function recordOutcomes(
  trx: Trx,
  outcomes: (LedgerOutcome & { id: string })[],
): Promise<void> {
  await sql`
    UPDATE inbound_events AS e
       SET outcome = v.outcome, tenant_id = v.tenant_id, detail = v.detail,
           processed_at = clock_timestamp()
      FROM json_to_recordset(${JSON.stringify(outcomes)}::json)
           AS v(id uuid, outcome text, tenant_id uuid, detail text)
     WHERE e.id = v.id`.execute(trx);
}

/**
 * Keeps a delivery as `failed` with `detail` (a new row, or a failed one updated; not the
 * delivery's headers on a conflict: the row keeps the ones of its first attempt). Returns the
 * ledger id, or undefined when the delivery is recorded as done.
 */
export async function recordFailure(
  trx: Trx,
  row: LedgerValues,
  detail: string,
  tenantId: string | null,
): Promise<string | undefined> {
  const tenant = tenantId ? { tenant_id: tenantId } : {};
  const recorded = await trx
    .insertInto('inbound_events')
    .values({ ...row, ...tenant, detail, processed_at: new Date() })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'delivery_id'])
        .doUpdateSet({ ...tenant, detail, processed_at: new Date() })
        .where('inbound_events.outcome', '=', 'failed'),
    )
    .returning('id')
    .executeTakeFirst();
  return recorded?.id;
}
