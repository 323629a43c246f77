/**
 * Runs once before the whole jest run. Gives every test file one fresh, migrated database:
 * - DATABASE_URL set (CI, or your own server): a new database `crm_test_<time>_<pid>` on it;
 * - unset: a throwaway embedded Postgres under .data/ (no system install needed).
 * Also finds out whether a NATS server is reachable for the JetStream tests.
 */
import { Socket } from 'node:net';
import { createDb } from '../../libs/shared/src/db/create-db';
import { ensureDatabase, withDatabase } from '../../libs/shared/src/db/database-url';
import { migrateToLatest } from '../../libs/shared/src/db/migrate';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../dev/embedded-postgres';

declare global {
  // Handed from setup to teardown (same process).
  var __testDatabase: { adminUrl: string; name: string; embedded?: EmbeddedPostgres } | undefined;
}

function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || 4222), hostname, () => done(true));
  });
}

async function findNats(): Promise<void> {
  const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  if (await reachable(url)) {
    process.env.TEST_NATS_URL = url;
    return;
  }
  if (process.env.REQUIRE_NATS) {
    throw new Error(`REQUIRE_NATS is set but no NATS server answers at ${url}`);
  }
  process.stdout.write(
    `\n[test setup] NATS JetStream tests will be SKIPPED: no NATS server answers at ${url} (set NATS_URL, or REQUIRE_NATS=1 to fail instead).\n`,
  );
}

export default async function globalSetup(): Promise<void> {
  // First, so a missing required NATS fails before any database is made.
  await findNats();
  let adminUrl = process.env.DATABASE_URL;
  let embedded: EmbeddedPostgres | undefined;
  if (!adminUrl) {
    const port = await freePort();
    embedded = await startEmbeddedPostgres({
      dataDir: `.data/test-postgres-${process.pid}`,
      port,
      persistent: false,
    });
    adminUrl = embedded.adminUrl;
  }
  const name = `crm_test_${Date.now()}_${process.pid}`;
  // The shared database, and a template nobody connects to, cloned by isolatedTestDb() for
  // tests whose relays would otherwise pick up each other's outbox rows.
  const template = `${name}_tpl`;
  for (const database of [name, template]) {
    await ensureDatabase(adminUrl, database);
    const { db, close } = createDb({
      connectionString: withDatabase(adminUrl, database),
      maxConnections: 1,
    });
    try {
      await migrateToLatest(db);
    } finally {
      await close();
    }
  }
  globalThis.__testDatabase = { adminUrl, name, embedded };
  process.env.DATABASE_URL = withDatabase(adminUrl, name);
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEST_TEMPLATE_DATABASE = template;
}
