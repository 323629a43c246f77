import {
  CompiledQuery,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Pool, PoolClient, QueryResult as PgResult } from 'pg';
import { preparedStatementName } from './prepared-statement';

/**
 * Kysely's Postgres dialect with one round trip less per transaction: `BEGIN` is not sent on
 * its own but in front of the transaction's first statement when that statement has no
 * parameters (a simple-protocol query may hold several statements). Every transaction of the
 * platform starts with one (withTenant's and withSystemScope's `SET LOCAL ROLE ...`), so
 * `BEGIN; SET ...; <query>; COMMIT` costs three round trips instead of four. A first statement
 * with parameters gets its own `BEGIN` as before; a transaction that ran no statement sends
 * neither `BEGIN` nor `COMMIT`/`ROLLBACK`.
 */
export class FoldedBeginDialect extends PostgresDialect {
  constructor(private readonly pool: Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new FoldedBeginDriver(this.pool);
  }
}

class FoldedBeginDriver implements Driver {
  private destroyed = false;

  constructor(private readonly pool: Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    if (this.destroyed) {
      client.release();
      throw new Error('driver has already been destroyed');
    }
    return new FoldedBeginConnection(client);
  }

  async beginTransaction(
    connection: FoldedBeginConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    if (!settings.isolationLevel && !settings.accessMode) {
      connection.beginPending = true;
      return;
    }
    const mode = [
      settings.isolationLevel && `isolation level ${settings.isolationLevel}`,
      settings.accessMode,
    ].filter(Boolean);
    await connection.executeQuery(CompiledQuery.raw(`start transaction ${mode.join(' ')}`));
  }

  async commitTransaction(connection: FoldedBeginConnection): Promise<void> {
    await connection.endTransaction('commit');
  }

  async rollbackTransaction(connection: FoldedBeginConnection): Promise<void> {
    await connection.endTransaction('rollback');
  }

  async releaseConnection(connection: FoldedBeginConnection): Promise<void> {
    connection.release();
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    if (!this.pool.ended) await this.pool.end();
  }
}

const AFFECTS_ROWS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class FoldedBeginConnection implements DatabaseConnection {
  /** BEGIN is owed: it goes out with the next statement. */
  beginPending = false;

  constructor(private readonly client: PoolClient) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    let text = compiled.sql;
    if (this.beginPending) {
      this.beginPending = false;
      if (compiled.parameters.length === 0) text = `begin; ${text}`;
      else await this.client.query('begin');
    }
    const name = preparedStatementName(text);
    const values = [...compiled.parameters];
    const outcome = (await (name
      ? this.client.query({ name, text, values })
      : this.client.query(text, values))) as PgResult | PgResult[];
    // Several statements answer with one result each: the caller's statement is the last.
    const result = Array.isArray(outcome) ? outcome[outcome.length - 1] : outcome;
    return {
      numAffectedRows: AFFECTS_ROWS.has(result.command) ? BigInt(result.rowCount ?? 0) : undefined,
      rows: (result.rows ?? []) as R[],
    };
  }

  async endTransaction(command: 'commit' | 'rollback'): Promise<void> {
    if (this.beginPending) {
      // Nothing ran: there is no transaction on the server to end.
      this.beginPending = false;
      return;
    }
    await this.client.query(command);
  }

  // eslint-disable-next-line require-yield -- no cursor support, as with Kysely's default
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported');
  }

  release(): void {
    this.client.release();
  }
}
