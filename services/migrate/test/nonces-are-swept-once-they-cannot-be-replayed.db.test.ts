import { randomUUID } from 'node:crypto';
import { withSystemScope, type Db } from '@crm/shared/db';
import { isolatedTestDb, sweepPlans } from '@crm/test-kit';
import { configSchema } from '../src/config';
import { service } from '../src/main';
import { migrateRetention } from '../src/retention/retention-sweeps';
import { SKEW_WINDOW_MS } from '../src/signature/verify-signed-request';

/*
 * migrate's retention: a nonce refuses a replay only while its signed timestamp is inside the
 * skew window (either side of the server clock); the sweep removes it once twice that has
 * passed, and never sooner, whatever the variable says.
 */
let database: Db;
const MINUTE = 60_000;

beforeAll(async () => {
  database = await isolatedTestDb();
});
afterAll(() => database.close());

async function nonce(seenAgoMs: number): Promise<string> {
  const value = randomUUID();
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('migrate_nonces')
      .values({ nonce: value, seen_at: new Date(Date.now() - seenAgoMs) } as never)
      .execute(),
  );
  return value;
}

it('deletes nonces seen over twice the skew window ago and keeps the ones that still refuse', async () => {
  const [sweep] = migrateRetention(configSchema.parse({})).sweeps;
  expect(sweep.keepMs).toBe(2 * SKEW_WINDOW_MS);
  const gone = await nonce(2 * SKEW_WINDOW_MS + MINUTE);
  const kept = await nonce(2 * SKEW_WINDOW_MS - MINUTE);
  expect(await sweep.sweepBatch(database.db, new Date(Date.now() - sweep.keepMs), 1000)).toBe(1);
  const left = await withSystemScope(database.db, (trx) =>
    trx.selectFrom('migrate_nonces').select('nonce').execute(),
  );
  expect(left.map((row) => row.nonce)).toEqual([kept]);
  expect(left.map((row) => row.nonce)).not.toContain(gone);
});

it('refuses a setting shorter than twice the skew window', () => {
  expect(() => configSchema.parse({ RETENTION_MIGRATE_NONCES_MINUTES: '9' })).toThrow(
    /at least 10 minutes/,
  );
  expect(configSchema.parse({ RETENTION_MIGRATE_NONCES_MINUTES: '60' })).toMatchObject({
    RETENTION_MIGRATE_NONCES_MINUTES: 60,
  });
});

it('a batch and the health question read nonces by age, without a sort', async () => {
  const [sweep] = migrateRetention(configSchema.parse({})).sweeps;
  const plans = await sweepPlans(database, async (db) => {
    await sweep.sweepBatch(db, new Date(0), 1000);
    await sweep.oldestBefore(db, new Date(0));
  });
  expect(plans).toHaveLength(2);
  for (const plan of plans) {
    expect(plan.indexes).toContain('migrate_nonces_by_seen');
    expect(plan.sorts).toBe(false);
    expect(plan.scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
  }
});

it('migrate runs the sweep as its worker', () => {
  const workers = service.workers?.({ db: database.db } as never, configSchema.parse({}));
  expect(workers?.map((w) => w.name)).toEqual(['retention']);
});
