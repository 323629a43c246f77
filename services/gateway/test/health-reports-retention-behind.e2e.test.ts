import { randomUUID } from 'node:crypto';
import { payloadWeek, withSystemScope } from '@crm/shared/db';
import { sql } from 'kysely';
import { createTenant, eventually, usePlatformBehindGateway } from '@crm/test-kit';
import request from 'supertest';
import { configSchema as crmApiConfig } from '../../crm-api/src/config';
import { service as crmApi } from '../../crm-api/src/main';
import { crmApiRetention } from '../../crm-api/src/retention/retention-sweeps';
import { configSchema as webhookIngestConfig } from '../../webhook-ingest/src/config';
import { service as webhookIngest } from '../../webhook-ingest/src/main';
import { ensurePayloadPartitions } from '../../webhook-ingest/src/retention/payload-partitions.repository';
import { webhookIngestRetention } from '../../webhook-ingest/src/retention/retention-sweeps';

/*
 * GET /api/health says when retention is behind: a row a policy removes is older than the
 * policy by more than RETENTION_BEHIND_AFTER_MINUTES (its service's sweep is not keeping up, or
 * not running). `checks.retention` is then `behind`, naming the service, the table, the
 * variable of its policy and the oldest row's age, and the platform is `degraded`; once the
 * sweeps catch up it is `ok` again. crm-api keeps published events 30 days here (its own
 * variable), so an 8-day-old published row is within its policy. The ledger's payload table,
 * partitioned by week, is behind when its oldest week ended past the policy, and says so when
 * the next week's partition is missing.
 */
const CRM_API_ENV = { RETENTION_PUBLISHED_EVENTS_DAYS: '30' };
const stack = usePlatformBehindGateway([
  { service: crmApi, env: CRM_API_ENV },
  { service: webhookIngest },
]);
const DAY = 24 * 60 * 60_000;
const ago = (ms: number) => new Date(Date.now() - ms);

async function publishedEvent(tenantId: string, publishedAgoMs: number): Promise<void> {
  const id = randomUUID();
  await withSystemScope(stack.database.db, (trx) =>
    trx
      .insertInto('event_outbox')
      .values({
        id,
        tenant_id: tenantId,
        type: 'lead.created',
        envelope: JSON.stringify({ id }),
        created_at: ago(publishedAgoMs),
        published_at: ago(publishedAgoMs),
      })
      .execute(),
  );
}

const retention = async () => {
  const res = await request(stack.url).get('/api/health');
  expect(res.status).toBe(200);
  return res.body.checks.retention;
};

it('is ok while every table is within its policy', async () => {
  const tenant = await createTenant(stack.database);
  await publishedEvent(tenant.id, 8 * DAY);
  expect(await retention()).toEqual({ status: 'ok', behind: [] });
});

it('is behind, naming each table past its policy, until the sweeps catch up', async () => {
  const tenant = await createTenant(stack.database);
  await publishedEvent(tenant.id, 32 * DAY);
  await withSystemScope(stack.database.db, (trx) =>
    trx
      .insertInto('inbound_events')
      .values({
        provider: 'network',
        delivery_id: randomUUID(),
        raw_body: '{}',
        verification: 'verified',
        outcome: 'processed',
        received_at: ago(100 * DAY),
      })
      .execute(),
  );
  // A payload week that ended 35 days ago or more (made as the worker makes them, its clock
  // moved back), and next week's partition gone.
  await ensurePayloadPartitions(stack.database.db, payloadWeek(new Date(), -6).from, 0);
  const next = payloadWeek(new Date(), 1);
  await sql`ALTER TABLE inbound_event_payloads
    DETACH PARTITION ${sql.id('inbound_event_payload_partitions', next.name)}`.execute(
    stack.database.db,
  );
  const behind = await eventually(async () => {
    const check = await retention();
    expect(check.status).toBe('behind');
    expect(check.behind).toHaveLength(4);
    return check.behind;
  });
  expect(behind).toEqual(
    expect.arrayContaining([
      {
        service: 'crm-api',
        table: 'event_outbox',
        policy: 'RETENTION_PUBLISHED_EVENTS_DAYS',
        oldestAgeSeconds: expect.any(Number),
        keepSeconds: 30 * 24 * 60 * 60,
      },
      expect.objectContaining({
        service: 'webhook-ingest',
        table: 'inbound_events.raw_body',
        policy: 'RETENTION_LEDGER_PAYLOADS_DAYS',
      }),
      expect.objectContaining({
        service: 'webhook-ingest',
        table: 'inbound_events',
        policy: 'RETENTION_LEDGER_DAYS',
        keepSeconds: 90 * 24 * 60 * 60,
      }),
      {
        service: 'webhook-ingest',
        table: 'inbound_event_payloads',
        policy: 'RETENTION_LEDGER_PAYLOADS_DAYS',
        // The age of the old week's end.
        oldestAgeSeconds: expect.any(Number),
        keepSeconds: 30 * 24 * 60 * 60,
        missing: expect.stringContaining(`next week (${next.name}`),
      },
    ]),
  );
  const outbox = behind.find((lag: { table: string }) => lag.table === 'event_outbox');
  expect(Math.round(outbox.oldestAgeSeconds / (24 * 60 * 60))).toBe(32);
  const res = await request(stack.url).get('/api/health');
  expect(res.body.status).not.toBe('healthy');

  // The sweeps catch up (as each service's worker does on its next round: prepare, then sweep).
  const sweeps = [
    ...crmApiRetention(crmApiConfig.parse(CRM_API_ENV)).sweeps,
    ...webhookIngestRetention(webhookIngestConfig.parse({})).sweeps,
  ];
  for (const sweep of sweeps) {
    await sweep.prepare?.(stack.database.db, new Date());
    await sweep.sweepBatch(stack.database.db, ago(sweep.keepMs), 1000);
  }
  await eventually(async () => expect(await retention()).toEqual({ status: 'ok', behind: [] }));
});
