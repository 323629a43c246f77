import { randomUUID } from 'node:crypto';
import { captureLogger, eventually, testDb } from '@crm/test-kit';
import { createDb } from '@crm/shared/db';
import { service } from '../src/main';
import {
  deleteExpiredCounters,
  expiredCountersWorker,
  KEEP_EXPIRED_MS,
} from '../src/rate-limit/expired-counters-worker';

/*
 * The gateway's one sweeper of rate_limits (instead of rate-limiter-flexible's timer per
 * limiter, which nothing stopped): counters whose window ended over an hour ago are deleted,
 * current ones and recently ended ones are kept, and the worker stops cleanly.
 */
const database = testDb();
afterAll(() => database.close());

async function insertCounters(expires: Record<string, number>): Promise<string> {
  const prefix = `sweep-test-${randomUUID()}:`;
  for (const [name, expire] of Object.entries(expires)) {
    await database.pool.query('INSERT INTO rate_limits (key, points, expire) VALUES ($1, 1, $2)', [
      prefix + name,
      expire,
    ]);
  }
  return prefix;
}

async function keysLeft(prefix: string): Promise<string[]> {
  const { rows } = await database.pool.query<{ key: string }>(
    'SELECT key FROM rate_limits WHERE key LIKE $1 ORDER BY key',
    [`${prefix}%`],
  );
  return rows.map((row) => row.key.slice(prefix.length));
}

it('deletes counters whose window ended over an hour ago, and only those', async () => {
  const now = Date.now();
  const prefix = await insertCounters({
    'ended-two-hours-ago': now - 2 * KEEP_EXPIRED_MS,
    'ended-ten-minutes-ago': now - 10 * 60_000,
    'running-window': now + 30_000,
  });
  expect(await deleteExpiredCounters(database.pool, now)).toBeGreaterThanOrEqual(1);
  expect(await keysLeft(prefix)).toEqual(['ended-ten-minutes-ago', 'running-window']);
});

it('the gateway runs the sweep as a worker: at start, then on its interval, until stopped', async () => {
  expect(service.workers?.({} as never, {} as never).map((w) => w.name)).toEqual([
    'expired-rate-limit-counters',
    'expired-oauth-rows',
  ]);
  const { logger } = captureLogger();
  const worker = expiredCountersWorker({ pool: database.pool, logger }, 50);
  const first = await insertCounters({ old: Date.now() - 2 * KEEP_EXPIRED_MS });
  await worker.start();
  await eventually(async () => expect(await keysLeft(first)).toEqual([]));
  const later = await insertCounters({ old: Date.now() - 2 * KEEP_EXPIRED_MS });
  await eventually(async () => expect(await keysLeft(later)).toEqual([]));
  await worker.stop();
  const afterStop = await insertCounters({ old: Date.now() - 2 * KEEP_EXPIRED_MS });
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await keysLeft(afterStop)).toEqual(['old']);
  await deleteExpiredCounters(database.pool);
});

it('a failed sweep is logged, not thrown, and the worker still stops', async () => {
  const closed = createDb({ connectionString: process.env.DATABASE_URL!, maxConnections: 1 });
  await closed.close();
  const { logger, lines } = captureLogger();
  const worker = expiredCountersWorker({ pool: closed.pool, logger }, 60_000);
  await worker.start();
  await eventually(() =>
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'deleting expired rate-limit counters failed' }),
      ]),
    ),
  );
  await worker.stop();
});
