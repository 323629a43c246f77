import { sql } from 'kysely';
import type { Db } from '../db/create-db';
import type { Database } from '../db/schema';
import { withSystemScope } from '../db/tenant-scope';
import type { EventEnvelope } from '../events/event-envelope';
import { eventsOfRow } from '../events/outbox';

/**
 * Reading back what a request stored, past row-level security (system scope): the rows and
 * outbox events a test compares with what the API answered, and the rows it sets up first.
 */

/** Inserts a row as the system role (test set-up of accounts, connections, messages). */
export async function insertRow<T extends keyof Database & string>(
  db: Db,
  table: T,
  values: Record<string, unknown>,
): Promise<{ id: string }> {
  return withSystemScope(
    db.db,
    (trx) =>
      trx
        .insertInto(table)
        .values(values as never)
        .returning(sql<string>`id`.as('id'))
        .executeTakeFirstOrThrow() as Promise<{ id: string }>,
  );
}

/**
 * Rows of `table`, in any tenant, whose `column` holds one of `values`: the traces of a
 * delivery's own identifiers (its message or event ids), which no other test writes. How a test
 * shows that a delivery routed to no tenant wrote nothing: table totals move while other test
 * files write the same tables.
 */
export async function rowsWith(db: Db, table: string, column: string, values: string[]) {
  if (values.length === 0) return [];
  return withSystemScope(db.db, async (trx) => {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} WHERE ${sql.ref(column)} IN (${sql.join(values)})`.execute(
      trx,
    );
    return rows;
  });
}

/**
 * The webhook ledger rows of one provider key, newest first, each with its payload: `raw_body`
 * and `headers` from inbound_event_payloads (by the row's id and received_at), or from the row
 * itself for a row recorded before that table; null where retention dropped it.
 */
export async function ledgerRows(db: Db, provider: string) {
  return withSystemScope(db.db, (trx) =>
    trx
      .selectFrom('inbound_events as e')
      .leftJoin('inbound_event_payloads as p', (join) =>
        join.onRef('p.ledger_id', '=', 'e.id').onRef('p.received_at', '=', 'e.received_at'),
      )
      .select([
        'e.id',
        'e.tenant_id',
        'e.provider',
        'e.delivery_id',
        'e.event_type',
        'e.content_type',
        'e.verification',
        'e.outcome',
        'e.detail',
        'e.attempts',
        'e.received_at',
        'e.processed_at',
      ])
      .select((eb) => [
        eb.fn.coalesce('p.raw_body', 'e.raw_body').as('raw_body'),
        eb.fn.coalesce('p.headers', 'e.headers').as('headers'),
      ])
      .where('e.provider', '=', provider)
      .orderBy('e.received_at', 'desc')
      .execute(),
  );
}

/** Rows of `table` for one tenant, oldest first. */
export async function tenantRows(db: Db, table: string, tenantId: string) {
  return withSystemScope(db.db, async (trx) => {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} WHERE tenant_id = ${tenantId} ORDER BY created_at, id`.execute(
      trx,
    );
    return rows;
  });
}

/**
 * Outbox events of one tenant in commit order: `{ type, envelope }`, one per event (a batch
 * row's events one by one).
 */
export async function outboxEvents(db: Db, tenantId: string) {
  const rows = await withSystemScope(db.db, (trx) =>
    trx
      .selectFrom('event_outbox')
      .select(['envelope'])
      .where('tenant_id', '=', tenantId)
      .orderBy('seq')
      .execute(),
  );
  return rows.flatMap((row) =>
    eventsOfRow(row.envelope).map((envelope) => ({ type: envelope.type, envelope })),
  );
}

/**
 * Outbox events of any tenant whose `data` holds one of the given values (`{ email: ... }`),
 * a batch row's events one by one, in commit order: the traces of a delivery's own identifiers,
 * for a test that shows a delivery routed to no tenant published nothing (see rowsWith).
 */
export async function outboxEventsNaming(db: Db, data: Record<string, string>) {
  const fields = Object.entries(data);
  if (fields.length === 0) return [];
  const { rows } = await withSystemScope(db.db, (trx) =>
    sql<{ envelope: EventEnvelope }>`
      SELECT e.envelope
        FROM event_outbox o
       CROSS JOIN LATERAL json_array_elements(
               CASE WHEN json_typeof(o.envelope) = 'array' THEN o.envelope
                    ELSE json_build_array(o.envelope) END
             ) WITH ORDINALITY AS e(envelope, n)
       WHERE ${sql.join(
         fields.map(([field, value]) => sql`e.envelope -> 'data' ->> ${field} = ${value}`),
         sql` OR `,
       )}
       ORDER BY o.seq, e.n`.execute(trx),
  );
  return rows.map(({ envelope }) => ({ type: envelope.type, envelope }));
}
