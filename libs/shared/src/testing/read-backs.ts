import { sql } from 'kysely';
import type { Db } from '../db/create-db';
import type { Database } from '../db/schema';
import { withSystemScope } from '../db/tenant-scope';
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

/** Row counts of `tables` (all tenants), to show a rejected request wrote nothing. */
export async function rowCounts(db: Db, tables: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await withSystemScope(db.db, async (trx) => {
    for (const table of tables) {
      const { rows } = await sql<{
        n: string;
      }>`SELECT count(*)::text AS n FROM ${sql.table(table)}`.execute(trx);
      counts[table] = Number(rows[0].n);
    }
  });
  return counts;
}

/** The webhook ledger rows of one provider key, newest first. */
export async function ledgerRows(db: Db, provider: string) {
  return withSystemScope(db.db, (trx) =>
    trx
      .selectFrom('inbound_events')
      .selectAll()
      .where('provider', '=', provider)
      .orderBy('received_at', 'desc')
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
