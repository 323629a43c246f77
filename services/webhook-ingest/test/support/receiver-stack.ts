import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@crm/shared/config';
import { withSystemScope, type Database, type Db } from '@crm/shared/db';
import { closeServer, listen } from '@crm/shared/service';
import {
  addMember,
  captureLogger,
  createTenant,
  testAppDeps,
  TEST_INTERNAL_TOKEN_SECRET,
  type CapturedLogger,
} from '@crm/shared/testing';
import type { Role } from '@crm/shared/identity';
import { sql } from 'kysely';
import {
  createAccount,
  signIn,
  testGateway,
  upstreamsAt,
  type TestGateway,
} from '../../../gateway/test/support/gateway';
import { service as webhookIngest } from '../../src/main';
import { createSecretBox } from '../../src/secrets/secret-box';

/** The PUBLIC_BASE_URL the test stack's webhook-ingest believes providers call. */
export const TEST_PUBLIC_BASE_URL = 'https://crm.example.test';

export interface ReceiverStack {
  /** The gateway's base URL: providers' deliveries go through it, as in production. */
  url: string;
  /** webhook-ingest's own address (for tests of the service alone). */
  serviceUrl: string;
  gateway: TestGateway;
  /** webhook-ingest's log, for tests that check what was (or was never) logged. */
  log: CapturedLogger;
}

/**
 * Registers beforeAll/afterAll for a real webhook-ingest behind a real gateway, both on
 * loopback. `env` configures webhook-ingest (provider secrets and so on).
 */
export function useReceiverStack(env: Record<string, string> = {}): ReceiverStack {
  const stack = {} as ReceiverStack;
  stack.log = captureLogger();
  const deps = testAppDeps({ logger: stack.log.logger });
  let service: Server;
  let gw: Server;
  beforeAll(async () => {
    const config = loadConfig('webhook-ingest', webhookIngest.configSchema, {
      PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL,
      ...env,
    });
    service = await listen(webhookIngest.createApp(deps, config), 0, '127.0.0.1');
    stack.serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    stack.gateway = testGateway(upstreamsAt(stack.serviceUrl));
    gw = await listen(stack.gateway.app, 0, '127.0.0.1');
    stack.url = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeServer(gw, 1000);
    await closeServer(service, 1000);
    await stack.gateway.close();
    await deps.closeAll();
  });
  return stack;
}

/** Seals connection secrets the way the test stack's webhook-ingest opens them. */
export const testSecretBox = () => createSecretBox(TEST_INTERNAL_TOKEN_SECRET);

/** A new tenant with a signed-in user of `role` (for the /api/integrations admin views). */
export async function tenantSession(
  stack: ReceiverStack,
  db: Db,
  role: Role = 'owner',
): Promise<{ tenantId: string; userId: string; cookie: string }> {
  const tenant = await createTenant(db);
  const user = await createAccount(db, role);
  await addMember(db, tenant.id, user.id, role);
  return {
    tenantId: tenant.id,
    userId: user.id,
    cookie: await signIn(stack.gateway.app, user.email),
  };
}

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
