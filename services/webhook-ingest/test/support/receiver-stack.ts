import { withSystemScope, type Database, type Db } from '@crm/shared/db';
import {
  captureLogger,
  TEST_INTERNAL_TOKEN_SECRET,
  type CapturedLogger,
} from '@crm/shared/testing';
import { sql } from 'kysely';
import {
  useServiceBehindGateway,
  type ServiceStack,
} from '../../../gateway/test/support/service-stack';
import { service as webhookIngest } from '../../src/main';
import { createSecretBox } from '../../src/secrets/secret-box';

export { tenantSession } from '../../../gateway/test/support/service-stack';

/** The PUBLIC_BASE_URL the test stack's webhook-ingest believes providers call. */
export const TEST_PUBLIC_BASE_URL = 'https://crm.example.test';

export interface ReceiverStack extends ServiceStack {
  /** webhook-ingest's log, for tests that check what was (or was never) logged. */
  log: CapturedLogger;
}

/**
 * Registers beforeAll/afterAll for a real webhook-ingest behind a real gateway, both on
 * loopback. `env` configures webhook-ingest (provider secrets and so on).
 */
export function useReceiverStack(env: Record<string, string> = {}): ReceiverStack {
  const log = captureLogger();
  const stack = useServiceBehindGateway(
    webhookIngest,
    { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, ...env },
    { logger: log.logger },
  );
  return Object.assign(stack, { log });
}

/** Seals connection secrets the way the test stack's webhook-ingest opens them. */
export const testSecretBox = () => createSecretBox(TEST_INTERNAL_TOKEN_SECRET);

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

/** The ledger rows of one provider key (system scope), newest first. */
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

/** Rows of `table` for one tenant (system scope), oldest first. */
export async function tenantRows(db: Db, table: string, tenantId: string) {
  return withSystemScope(db.db, async (trx) => {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} WHERE tenant_id = ${tenantId} ORDER BY created_at, id`.execute(
      trx,
    );
    return rows;
  });
}

/** Outbox events of one tenant, oldest first: `{ type, envelope }`. */
export async function outboxEvents(db: Db, tenantId: string) {
  return withSystemScope(db.db, (trx) =>
    trx
      .selectFrom('event_outbox')
      .select(['type', 'envelope'])
      .where('tenant_id', '=', tenantId)
      .orderBy('seq')
      .execute(),
  );
}
