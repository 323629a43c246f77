import { Kysely, sql } from 'kysely';
import { Pool, types } from 'pg';
import { FoldedBeginDialect } from './folded-begin-dialect';
import type { Database } from './schema';

// bigint (int8) columns arrive as strings by default; counts we read are safely within 2^53.
types.setTypeParser(types.builtins.INT8, (value) => value);
// A calendar date is not an instant: keep `date` columns as 'YYYY-MM-DD', never shifted by a time zone.
types.setTypeParser(types.builtins.DATE, (value) => value);

export interface Db {
  db: Kysely<Database>;
  pool: Pool;
  /** Resolves when the database answers `select 1`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface CreateDbOptions {
  connectionString: string;
  maxConnections?: number;
  applicationName?: string;
  /** Bounded waits so a dead database gives a quick 503, not a hung request. */
  connectionTimeoutMs?: number;
  statementTimeoutMs?: number;
}

export function createDb(options: CreateDbOptions): Db {
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    statement_timeout: options.statementTimeoutMs ?? 30000,
    idleTimeoutMillis: 30000,
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // that would crash the process. The next checkout simply gets a fresh connection.
  pool.on('error', () => undefined);
  // pg-pool listens for errors only while a client is idle. A checked-out client whose
  // connection dies between two queries (a transaction waiting on a slow export download)
  // would emit 'error' with no listener and crash the process; with this one its next query
  // fails instead, and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new FoldedBeginDialect(pool) });
  return {
    db,
    pool,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      await db.destroy();
      // Kysely ends the pool only if it ran a query itself: a pool used only directly (the
      // rate limiter's counters, a LISTEN) would stay open, its sockets keeping the process up.
      if (!pool.ended) await pool.end();
    },
  };
}
