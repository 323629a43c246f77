import type { Db } from '@crm/shared/db';
import {
  partitionSweep,
  RETENTION_POLICIES,
  retentionHealthCheck,
  retentionSweep,
  retentionWorker,
  type RetentionSweep,
} from '@crm/shared/retention';
import { captureLogger, eventually, isolatedTestDb, untilWaitingOnLock } from '@crm/shared/testing';
import { sql } from 'kysely';
import { Client } from 'pg';

/*
 * The shared retention worker over a table of this file's own: batches until one comes back
 * short, a pause between two, and a stop that lets the statement in hand finish and starts no
 * other (even when stopped while that statement waits on a lock, or during a long pause). A
 * sweep's prepare step runs before each round's sweeps and start() waits for the first; a
 * partition sweep drops one partition per batch.
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
    await untilWaitingOnLock(database.db, 'DELETE FROM retention_probe%');
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

describe('prepare steps and partition sweeps', () => {
  const options = { everyMs: 60 * 60_000, batchSize: 10, pauseMs: 0 };

  it('start() resolves once every prepare step has run; each round prepares before it sweeps', async () => {
    const calls: string[] = [];
    // The first prepare step waits until the test opens the gate; later ones pass through.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const sweep: RetentionSweep = {
      ...probeSweep,
      prepare: async () => {
        calls.push('prepare');
        await gate;
        return ['partition_2030_01'];
      },
      sweepBatch: async () => {
        calls.push('sweep');
        return 0;
      },
    };
    const { logger, lines } = captureLogger();
    const worker = retentionWorker({ db: database.db, logger }, [sweep], {
      ...options,
      everyMs: 20,
    });
    let started = false;
    const starting = worker.start().then(() => (started = true));
    await eventually(() => expect(calls).toEqual(['prepare']));
    expect(started).toBe(false);
    open();
    await starting;
    await eventually(() =>
      expect(calls.slice(0, 4)).toEqual(['prepare', 'sweep', 'prepare', 'sweep']),
    );
    await worker.stop();
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'retention prepared ahead',
          table: 'retention_probe',
          made: ['partition_2030_01'],
        }),
      ]),
    );
  });

  it('a failing prepare step is logged, not thrown, and the sweeps still run', async () => {
    await reset(5, 0);
    const { logger, lines } = captureLogger();
    const sweep: RetentionSweep = {
      ...probeSweep,
      prepare: async (db) => {
        await sql`SELECT * FROM no_such_table`.execute(db);
        return [];
      },
    };
    const worker = retentionWorker({ db: database.db, logger }, [sweep], options);
    await worker.start();
    await eventually(async () => expect(await left()).toBe(0));
    await worker.stop();
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'retention prepare failed', table: 'retention_probe' }),
      ]),
    );
  });

  it('start() does not wait past prepareWaitMs for a prepare step that hangs', async () => {
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const { logger, lines } = captureLogger();
    const sweep: RetentionSweep = {
      ...probeSweep,
      prepare: async () => {
        await hanging;
        return [];
      },
    };
    const worker = retentionWorker({ db: database.db, logger }, [sweep], {
      ...options,
      prepareWaitMs: 50,
    });
    await worker.start();
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'retention: started before its first prepare step finished',
        }),
      ]),
    );
    const stopping = worker.stop();
    release();
    await stopping;
  });

  /** A table of five "partitions" past the policy, dropped one per batch. */
  function partitions() {
    const left = ['p1', 'p2', 'p3', 'p4', 'p5'];
    const sweep = partitionSweep('partitioned_probe', policy, 7 * DAY, {
      prepare: async () => [],
      missing: async () => null,
      oldestBefore: async () => null,
      dropOneBefore: async () => (left.shift() ? 1 : 0),
    });
    return { left, sweep };
  }

  it('a partition sweep drops one partition per batch until none is due', async () => {
    const { left, sweep } = partitions();
    const { logger, lines } = captureLogger();
    const worker = retentionWorker({ db: database.db, logger }, [sweep], options);
    await worker.start();
    await eventually(() => expect(left).toEqual([]));
    await worker.stop();
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'retention sweep dropped partitions past their policy',
          table: 'partitioned_probe',
          removed: 5,
        }),
      ]),
    );
  });

  it('stopped during the pause between two partitions, it stops at once', async () => {
    const { left, sweep } = partitions();
    const worker = retentionWorker({ db: database.db, logger: captureLogger().logger }, [sweep], {
      ...options,
      pauseMs: 60 * 60_000,
    });
    await worker.start();
    await eventually(() => expect(left).toHaveLength(4));
    await worker.stop();
    expect(left).toHaveLength(4);
  });
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

  it('is behind when a table lacks what its writes need, saying what', async () => {
    await reset(0, 3);
    const partitioned: RetentionSweep = {
      ...probeSweep,
      missing: async () => 'no partition for next month',
    };
    const result = await retentionHealthCheck(database.db, [partitioned], { graceMs: 0 })();
    expect(result).toEqual({
      status: 'behind',
      behind: [
        {
          table: 'retention_probe',
          policy: policy.variable,
          oldestAgeSeconds: null,
          keepSeconds: 7 * 24 * 60 * 60,
          missing: 'no partition for next month',
        },
      ],
    });
  });
});
