import { PREPARED, type InboundOutcome, type InboundVerification, type Trx } from '@crm/shared/db';
import { sql } from 'kysely';

/*
 * Every statement of the `inbound_events` ledger's write path (record-delivery.ts alone,
 * record-deliveries.ts in groups), its payloads (`inbound_event_payloads`) included. This is
 * every delivery's hot path: each function is one statement, and the callers decide how many run
 * per delivery.
 */

/** A delivery's columns as it is claimed (record-delivery.ts builds them: ledgerValues). */
export interface LedgerValues {
  provider: string;
  delivery_id: string;
  event_type: string | null;
  content_type: string | null;
  /** The delivery's bytes: written into inbound_event_payloads, not the ledger row. */
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
 * The deliveries as a VALUES list, every column typed: the claim reads them twice (the ledger
 * row, then the payload).
 */
function deliveryValues(rows: LedgerValues[]) {
  return sql.join(
    rows.map(
      (row) => sql`(${row.provider}::text, ${row.delivery_id}::text, ${row.event_type}::text,
        ${row.content_type}::text, ${row.raw_body}::text, ${row.headers}::jsonb,
        ${row.verification}::text, ${row.outcome}::text)`,
    ),
  );
}
const DELIVERY = sql`delivery (provider, delivery_id, event_type, content_type, raw_body, headers,
  verification, outcome)`;

/** A claimed delivery as the claim statement answers it. */
interface ClaimedRow {
  id: string;
  delivery_id: string;
  /** A failed delivery claimed again: when its previous attempt was received (exact, as text). */
  retried_from: string | null;
  /** When this attempt was received (exact, as text). */
  received_at: string;
  /** A retried row's own headers, recorded before the payload table (JSON text), or null. */
  legacy_headers: string | null;
}

/**
 * The claim of deliveries (distinct ids), one statement whatever their number: a new one is
 * inserted as `failed` until its outcome is recorded in the same transaction; a failed one is
 * claimed again (attempts + 1, received_at now: the delivery log shows the latest attempt); one
 * recorded otherwise is left alone and returns no row (a redelivery).
 *
 * A new delivery's payload goes into inbound_event_payloads in the same statement, under the
 * ledger row's id and received_at (its week's partition); the row's own raw_body and headers
 * stay null. The statement only inserts into the payload table: Postgres routes the row to its
 * partition as it runs, so a delivery locks the parent and that one partition. A statement that
 * read or deleted from the parent would lock every partition (a prepared plan covers them all),
 * and the retention worker's detach of an old week, which waits for every lock on it, would
 * queue the deliveries behind it. So a retried delivery's payload is moved by a statement of its
 * own (movePayload), which names the one week it deletes from.
 *
 * A delivery whose week has no partition fails the statement, and with it the delivery
 * (docs/retention.md). A single delivery's claim is kept prepared: planning it costs more than
 * running it, on every delivery. A group's is not: its text differs with the group's size, and a
 * connection would keep a plan for every size it ever saw.
 */
function claimStatement(rows: LedgerValues[]) {
  return sql<ClaimedRow>`${rows.length === 1 ? PREPARED : sql``}
    WITH ${DELIVERY} AS (VALUES ${deliveryValues(rows)}),
    retried AS (
      SELECT e.id, e.received_at, e.headers FROM inbound_events e
        JOIN delivery d ON e.provider = d.provider AND e.delivery_id = d.delivery_id
       WHERE e.outcome = 'failed'
    ),
    claimed AS (
      INSERT INTO inbound_events AS e
             (provider, delivery_id, event_type, content_type, verification, outcome)
      SELECT provider, delivery_id, event_type, content_type, verification, outcome FROM delivery
      ON CONFLICT (provider, delivery_id) DO UPDATE
         SET attempts = e.attempts + 1, verification = excluded.verification,
             received_at = now(), raw_body = NULL, headers = NULL
       WHERE e.outcome = 'failed'
      RETURNING e.id, e.provider, e.delivery_id, e.received_at
    ),
    stored AS (
      INSERT INTO inbound_event_payloads (ledger_id, received_at, raw_body, headers)
      SELECT c.id, c.received_at, d.raw_body, d.headers
        FROM claimed c
        JOIN delivery d ON d.provider = c.provider AND d.delivery_id = c.delivery_id
       WHERE NOT EXISTS (SELECT FROM retried r WHERE r.id = c.id)
      ON CONFLICT DO NOTHING
    )
    SELECT c.id, c.delivery_id, r.received_at::text AS retried_from,
           c.received_at::text AS received_at, r.headers::text AS legacy_headers
      FROM claimed c LEFT JOIN retried r ON r.id = c.id`;
}

/**
 * Moves a retried delivery's payload from its previous attempt's week to this attempt's: the
 * old payload row is deleted and the new one keeps the original's headers when none are sent (a
 * re-processing sends none), or the headers of a row recorded before the payload table. Both
 * times are literal values of the statement, so Postgres plans it for their weeks alone (it is
 * never prepared). Should another transaction have claimed the row in between, the old payload
 * row is already gone and nothing is left behind.
 */
async function movePayload(trx: Trx, claimed: ClaimedRow, row: LedgerValues): Promise<void> {
  await sql`
    WITH moved AS (
      DELETE FROM inbound_event_payloads
       WHERE ledger_id = ${claimed.id} AND received_at = ${claimed.retried_from}::timestamptz
      RETURNING headers
    )
    INSERT INTO inbound_event_payloads (ledger_id, received_at, raw_body, headers)
    SELECT ${claimed.id}, ${claimed.received_at}::timestamptz, ${row.raw_body},
           coalesce(${row.headers}::jsonb, (SELECT headers FROM moved),
                    ${claimed.legacy_headers}::jsonb)
    ON CONFLICT DO NOTHING`.execute(trx);
}

/** Claims deliveries and moves the payloads of the retried ones; the claimed rows. */
async function claim(trx: Trx, rows: LedgerValues[]): Promise<ClaimedRow[]> {
  const { rows: claimed } = await claimStatement(rows).execute(trx);
  const byId = new Map(rows.map((row) => [row.delivery_id, row]));
  for (const row of claimed) {
    if (row.retried_from !== null) await movePayload(trx, row, byId.get(row.delivery_id)!);
  }
  return claimed;
}

/** Claims one delivery; its ledger id, or undefined when it is already recorded. */
export async function claimDelivery(trx: Trx, row: LedgerValues): Promise<string | undefined> {
  return (await claim(trx, [row]))[0]?.id;
}

/** Claims a group's deliveries in one statement; delivery id -> ledger id of the claimed. */
export async function claimDeliveries(
  trx: Trx,
  rows: LedgerValues[],
): Promise<Map<string, string>> {
  return new Map((await claim(trx, rows)).map((row) => [row.delivery_id, row.id]));
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
 * Keeps a delivery as `failed` with `detail`, in one statement: a new row, with its payload (as
 * the claim writes it), or a failed one updated, which keeps its payload (that of its first
 * attempt, headers included). Returns the ledger id, or undefined when the delivery is recorded
 * as done. Whether the row is new is what this statement's snapshot sees (`known`); a row
 * another transaction inserted in between already has its payload, which ON CONFLICT keeps.
 */
export async function recordFailure(
  trx: Trx,
  row: LedgerValues,
  detail: string,
  tenantId: string | null,
): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
    WITH ${DELIVERY} AS (VALUES ${deliveryValues([row])}),
    known AS (
      SELECT FROM inbound_events e
        JOIN delivery d ON e.provider = d.provider AND e.delivery_id = d.delivery_id
    ),
    recorded AS (
      INSERT INTO inbound_events AS e (provider, delivery_id, event_type, content_type,
             verification, outcome, tenant_id, detail, processed_at)
      SELECT provider, delivery_id, event_type, content_type, verification, outcome,
             ${tenantId}::uuid, ${detail}, clock_timestamp()
        FROM delivery
      ON CONFLICT (provider, delivery_id) DO UPDATE
         SET tenant_id = coalesce(excluded.tenant_id, e.tenant_id), detail = excluded.detail,
             processed_at = excluded.processed_at
       WHERE e.outcome = 'failed'
      RETURNING e.id, e.received_at
    ),
    stored AS (
      INSERT INTO inbound_event_payloads (ledger_id, received_at, raw_body, headers)
      SELECT r.id, r.received_at, d.raw_body, d.headers FROM recorded r, delivery d
       WHERE NOT EXISTS (SELECT FROM known)
      ON CONFLICT DO NOTHING
    )
    SELECT id FROM recorded`.execute(trx);
  return rows[0]?.id;
}
