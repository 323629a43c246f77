import { randomUUID } from 'node:crypto';
import { withSystemScope, type Db } from '@crm/shared/db';
import { createTenant, isolatedTestDb, sweepPlans } from '@crm/test-kit';
import { configSchema } from '../src/config';
import { service } from '../src/main';
import { crmApiRetention } from '../src/retention/retention-sweeps';

/*
 * crm-api's retention of the event outbox: a row published over 7 days ago goes, one published
 * just inside 7 days stays, and a row never published stays whatever its age (its event has not
 * reached the stream). Tenants do not matter: the sweep runs in the system scope by age alone,
 * and the rows it keeps are left exactly as they were.
 */
let database: Db;
const [sweep] = crmApiRetention(configSchema.parse({})).sweeps;
const DAY = 24 * 60 * 60_000;
const MINUTE = 60_000;

beforeAll(async () => {
  database = await isolatedTestDb();
});
afterAll(() => database.close());

async function outboxRow(tenantId: string, createdAgoMs: number, publishedAgoMs: number | null) {
  const id: string = randomUUID();
  const now = Date.now();
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('event_outbox')
      .values({
        id,
        tenant_id: tenantId,
        type: 'lead.created',
        envelope: JSON.stringify({ id }),
        created_at: new Date(now - createdAgoMs),
        published_at: publishedAgoMs === null ? null : new Date(now - publishedAgoMs),
      })
      .execute(),
  );
  return id;
}

const outbox = () =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('event_outbox').selectAll().orderBy('id').execute(),
  );

it('deletes published rows past 7 days, in any tenant, and nothing else', async () => {
  expect(sweep.keepMs).toBe(7 * DAY);
  const [a, b] = [await createTenant(database), await createTenant(database)];
  const gone = [
    await outboxRow(a.id, 8 * DAY, 7 * DAY + MINUTE),
    await outboxRow(b.id, 30 * DAY, 29 * DAY),
  ];
  const kept = [
    await outboxRow(a.id, 8 * DAY, 7 * DAY - MINUTE),
    await outboxRow(b.id, MINUTE, MINUTE),
    // Never published: kept however old.
    await outboxRow(a.id, 400 * DAY, null),
    await outboxRow(b.id, 8 * DAY, null),
  ];
  const before = await outbox();
  expect(await sweep.sweepBatch(database.db, new Date(Date.now() - sweep.keepMs), 1000)).toBe(2);
  const after = await outbox();
  expect(after.map((row) => row.id).sort()).toEqual([...kept].sort());
  // The kept rows are unchanged, column for column.
  expect(after).toEqual(before.filter((row) => !gone.includes(row.id)));
});

it('an unpublished row is never deleted, even by a sweep with a cutoff in the future', async () => {
  const tenant = await createTenant(database);
  const pending = await outboxRow(tenant.id, 1000 * DAY, null);
  await sweep.sweepBatch(database.db, new Date(Date.now() + DAY), 1000);
  const left = await outbox();
  // Every published row is gone; every unpublished one (this test's and the first's) stays.
  expect(left.map((row) => row.published_at)).toEqual([null, null, null]);
  expect(left.map((row) => row.id)).toContain(pending);
});

it('a batch and the health question read the published index, oldest first, no sort', async () => {
  const plans = await sweepPlans(database, async (db) => {
    await sweep.sweepBatch(db, new Date(0), 1000);
    await sweep.oldestBefore(db, new Date(0));
  });
  expect(plans).toHaveLength(2);
  for (const plan of plans) {
    expect(plan.indexes).toContain('event_outbox_published');
    expect(plan.sorts).toBe(false);
    expect(plan.scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
  }
  // The pending index is never read by the sweep: it cannot reach an unpublished row.
  expect(plans.flatMap((plan) => plan.indexes)).not.toContain('event_outbox_pending');
});

it('crm-api runs the sweep as a worker beside its search indexer', () => {
  const workers = service.workers?.({ db: database.db } as never, configSchema.parse({}));
  expect(workers?.map((w) => w.name)).toContain('retention');
});
