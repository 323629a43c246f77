import type { Db } from '@crm/shared/db';
import {
  RETENTION_POLICIES,
  retentionHealthCheck,
  retentionSweep,
  retentionWorker,
  type RetentionSweep,
} from '@crm/shared/retention';
import { captureLogger, eventually, isolatedTestDb } from '@crm/shared/testing';
import { sql } from 'kysely';
import { Client } from 'pg';

/*
 * The shared retention worker over a table of this file's own: batches until one comes back
 * short, a pause between two, and a stop that lets the statement in hand finish and starts no
 * other (even when stopped while that statement waits on a lock, or during a long pause).
 */
let database: Db & { url: string };
const DAY = 24 * 60 * 60_000;
const policy = RETENTION_POLICIES.publishedEvents;

beforeAll(async () => {
  database = await isolatedTestDb();
  await sql`CREATE TABLE retention_probe (
    id serial PRIMARY KEY, at timestamptz NOT NULL)`.execute(database.db);
  await sql`CREATE INDEX retention_probe_by_at ON retention_probe (at)`.execute(database.db);
});
afterAll(() => database.close());

/** A sweep of retention_probe keeping rows for 7 days. */
const probeSweep: RetentionSweep = retentionSweep('retention_probe', policy, 7 * DAY, {
  sweepBatch: async (db, cutoff, limit) => {
    const result = await sql`DELETE FROM retention_probe WHERE id IN (
      SELECT id FROM retention_probe WHERE at < ${cutoff} ORDER BY at LIMIT ${limit})`.execute(db);
    return Number(result.numAffectedRows);
  },
  oldestBefore: async (db, cutoff) => {
    const { rows } = await sql<{
      oldest: Date | null;
    }>`SELECT min(at) AS oldest FROM retention_probe WHERE at < ${cutoff}`.execute(db);
    return rows[0].oldest;
  },
});

async function reset(old: number, recent: number): Promise<void> {
  await sql`TRUNCATE retention_probe`.execute(database.db);
  await sql`INSERT INTO retention_probe (at)
    SELECT now() - interval '8 days' FROM generate_series(1, ${old})`.execute(database.db);
  await sql`INSERT INTO retention_probe (at)
    SELECT now() - interval '6 days' FROM generate_series(1, ${recent})`.execute(database.db);
}

const left = async () =>
  Number(
    (
      await sql<{
        old: string;
      }>`SELECT count(*) FILTER (WHERE at < now() - interval '7 days') AS old FROM retention_probe`.execute(
        database.db,
      )
    ).rows[0].old,
  );
const total = async () =>
  Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM retention_probe`.execute(database.db))
      .rows[0].n,
  );

it('removes every row past the policy a batch at a time, and keeps the rows inside it', async () => {
  await reset(25, 5);
  const { logger, lines } = captureLogger();
  const worker = retentionWorker({ db: database.db, logger }, [probeSweep], {
    everyMs: 60 * 60_000,
    batchSize: 10,
    pauseMs: 0,
  });
  await worker.start();
  await eventually(async () => expect(await total()).toBe(5));
  await worker.stop();
  expect(await left()).toBe(0);
  expect(lines()).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        msg: 'retention sweep removed rows past their policy',
        table: 'retention_probe',
        removed: 25,
      }),
    ]),
  );
});

it('stopped while a batch waits on a lock, it lets that batch finish and starts no other', async () => {
  await reset(25, 5);
  const locker = new Client({ connectionString: database.url });
  await locker.connect();
  await locker.query('BEGIN; LOCK TABLE retention_probe IN ACCESS EXCLUSIVE MODE');
  const { logger } = captureLogger();
  const worker = retentionWorker({ db: database.db, logger }, [probeSweep], {
    everyMs: 60 * 60_000,
    batchSize: 10,
    pauseMs: 0,
  });
  await worker.start();
  try {
    // Asked outside the locker's transaction: a backend reads pg_stat_activity once per
    // transaction, so polling from inside it would see the first answer for ever.
    await eventually(async () => {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM retention_probe%'`.execute(
        database.db,
      );
      expect(Number(rows[0].n)).toBe(1);
    });
  } catch (err) {
    // Never leave the lock behind for the next tests.
    await locker.query('ROLLBACK');
    await locker.end();
    await worker.stop();
    throw err;
  }
  const stopped = worker.stop();
  await locker.query('COMMIT');
  await locker.end();
  await stopped;
  // The batch in hand (10 rows) committed; the 15 other old rows wait for the next start.
  expect(await left()).toBe(15);
  expect(await total()).toBe(20);
});

it('stopped during the pause between two batches, it stops at once', async () => {
  await reset(25, 0);
  const { logger } = captureLogger();
  const worker = retentionWorker({ db: database.db, logger }, [probeSweep], {
    everyMs: 60 * 60_000,
    batchSize: 10,
    // An hour between two batches: the test would time out if stop() waited for it.
    pauseMs: 60 * 60_000,
  });
  await worker.start();
  await eventually(async () => expect(await left()).toBe(15));
  await worker.stop();
  expect(await left()).toBe(15);
});

it('a failing batch is logged, not thrown, and the worker still stops', async () => {
  const { logger, lines } = captureLogger();
  const failing = retentionSweep('retention_probe', policy, 7 * DAY, {
    sweepBatch: async (db) => {
      await sql`SELECT * FROM no_such_table`.execute(db);
      return 0;
    },
    oldestBefore: async () => null,
  });
  const worker = retentionWorker({ db: database.db, logger }, [failing], {
    everyMs: 60 * 60_000,
    batchSize: 10,
    pauseMs: 0,
  });
  await worker.start();
  await eventually(() =>
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'retention sweep failed', table: 'retention_probe' }),
      ]),
    ),
  );
  await worker.stop();
});

describe('the health check', () => {
  const check = (now: number) =>
    retentionHealthCheck(database.db, [probeSweep], { graceMs: 60 * 60_000, now: () => now })();

  it('is ok while the oldest row is within its policy plus the grace', async () => {
    await reset(0, 3);
    expect(await check(Date.now())).toEqual({ status: 'ok', behind: [] });
    // Rows 8 days old are past 7 days, but only by a day: inside a 2-day grace they are fine.
    await reset(2, 0);
    const lenient = retentionHealthCheck(database.db, [probeSweep], { graceMs: 2 * DAY });
    expect(await lenient()).toEqual({ status: 'ok', behind: [] });
  });

  it('is behind, naming the table, its policy and the oldest age, past the grace', async () => {
    await reset(2, 3);
    const now = Date.now();
    const result = await check(now);
    expect(result).toEqual({
      status: 'behind',
      behind: [
        {
          table: 'retention_probe',
          policy: policy.variable,
          oldestAgeSeconds: expect.any(Number),
          keepSeconds: 7 * 24 * 60 * 60,
        },
      ],
    });
    const age = result.behind[0].oldestAgeSeconds;
    expect(age).toBeGreaterThanOrEqual(8 * 24 * 60 * 60 - 60);
    expect(age).toBeLessThanOrEqual(8 * 24 * 60 * 60 + 60);
  });
});
