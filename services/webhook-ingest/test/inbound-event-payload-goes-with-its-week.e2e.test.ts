import { randomUUID } from 'node:crypto';
import { payloadWeek, withSystemScope } from '@crm/shared/db';
import { tenantSession, usePlatformBehindGateway } from '@crm/test-kit';
import request from 'supertest';
import { configSchema } from '../src/config';
import { service as webhookIngest } from '../src/main';
import { ensurePayloadPartitions } from '../src/retention/payload-partitions.repository';
import { webhookIngestRetention } from '../src/retention/retention-sweeps';

/*
 * The audit view and re-processing, through the real gateway, read a delivery's payload from
 * inbound_event_payloads by its ledger row's key, after the tenant has read the row itself under
 * its row-level security: another tenant's id is a 404 and shows nothing of the payload. Once
 * retention drops the payload's week, the row stays and answers as a payload that is gone (the
 * re-processing 409); a row recorded before the payload table still shows the payload it kept
 * itself, until the row-by-row strip takes it. A database of the file's own: it drops weeks.
 */
const stack = usePlatformBehindGateway([{ service: webhookIngest }]);
const PATH = '/api/integrations/inbound-events';
const DAY = 24 * 60 * 60_000;
const retention = webhookIngestRetention(configSchema.parse({}));
const sweepOf = (table: string) => retention.sweeps.find((s) => s.table === table)!;
// Six weeks back is past the 30 days whatever today's day (it ended 35 days ago or more).
const old = payloadWeek(new Date(), -6);
const HEADERS = { 'content-type': 'application/json', 'x-shop-signature': '[redacted]' };

type Session = Awaited<ReturnType<typeof tenantSession>>;
let owner: Session;
let other: Session;

beforeAll(async () => {
  owner = await tenantSession(stack, stack.database, 'owner');
  other = await tenantSession(stack, stack.database, 'owner');
  // The old weeks, made as the worker makes them, with its clock moved back.
  await ensurePayloadPartitions(stack.database.db, old.from);
});

/**
 * A verified storefront delivery that failed, received at `receivedAt`: its payload in
 * inbound_event_payloads, or (`legacy`) in the ledger row itself as rows were recorded before.
 */
async function failedDelivery(receivedAt: Date, body: string, legacy = false) {
  return withSystemScope(stack.database.db, async (trx) => {
    const { id } = await trx
      .insertInto('inbound_events')
      .values({
        tenant_id: owner.tenantId,
        provider: 'storefront_a',
        delivery_id: `${randomUUID()}:order:1@2030`,
        content_type: 'application/json',
        verification: 'verified',
        outcome: 'failed',
        detail: 'failed for the test',
        received_at: receivedAt,
        ...(legacy && { raw_body: body, headers: JSON.stringify(HEADERS) }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (!legacy) {
      await trx
        .insertInto('inbound_event_payloads')
        .values({
          ledger_id: id,
          received_at: receivedAt,
          raw_body: body,
          headers: JSON.stringify(HEADERS),
        })
        .execute();
    }
    return id;
  });
}

const get = (session: Session, id: string) =>
  request(stack.url).get(`${PATH}/${id}`).set('Cookie', session.cookie);
const reprocess = (session: Session, id: string) =>
  request(stack.url).post(`${PATH}/${id}/reprocess`).set('Cookie', session.cookie);

/** Runs a sweep as the worker's round does, at the real clock, until it has nothing left. */
async function sweep(table: string) {
  const s = sweepOf(table);
  while ((await s.sweepBatch(stack.database.db, new Date(Date.now() - s.keepMs), 1000)) > 0);
}

it("the audit view shows the payload kept in its week's partition; another tenant gets a 404 and none of it", async () => {
  const body = `{"order":"${randomUUID()}"}`;
  const id = await failedDelivery(new Date(Date.now() - DAY), body);
  const mine = await get(owner, id);
  expect(mine.status).toBe(200);
  expect(mine.body.data.event).toMatchObject({ id, raw_body: body, headers: HEADERS });
  for (const theirs of [await get(other, id), await reprocess(other, id)]) {
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'NOT_FOUND', message: 'Inbound event not found' });
    expect(JSON.stringify(theirs.body)).not.toContain(body);
  }
});

it('once its week is dropped, the row stays and answers as a payload that is gone: re-processing is a 409 that writes nothing', async () => {
  const body = `{"order":"${randomUUID()}"}`;
  const id = await failedDelivery(new Date(old.from.getTime() + 3 * DAY), body);
  expect((await get(owner, id)).body.data.event.raw_body).toBe(body);

  await sweep('inbound_event_payloads');
  const gone = await get(owner, id);
  expect(gone.status).toBe(200);
  expect(gone.body.data.event).toMatchObject({
    id,
    outcome: 'failed',
    raw_body: null,
    headers: null,
  });
  const res = await reprocess(owner, id);
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({
    code: 'CONFLICT',
    message:
      'The delivery can no longer be re-processed: its payload is kept for a limited time (30 days by default) and has been removed',
  });
  expect((await get(owner, id)).body.data.event).toMatchObject({ outcome: 'failed', attempts: 1 });
});

it('a row recorded before the payload table shows the payload it kept, until the row-by-row strip takes it', async () => {
  const body = `{"order":"${randomUUID()}"}`;
  const id = await failedDelivery(new Date(old.from.getTime() + 3 * DAY), body, true);
  expect((await get(owner, id)).body.data.event).toMatchObject({
    raw_body: body,
    headers: HEADERS,
  });
  await sweep('inbound_events.raw_body');
  expect((await get(owner, id)).body.data.event).toMatchObject({ raw_body: null, headers: null });
  expect((await reprocess(owner, id)).status).toBe(409);
});
