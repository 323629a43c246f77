import { withSystemScope, withTenant } from '@crm/shared/db';
import { writeEvents } from '@crm/shared/events';
import {
  CURSOR_REFUSALS,
  itKeepsTheCursorContract,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service } from '../src/main';

/*
 * GET /api/events through the real gateway: the tenant's recent outbox events, newest first,
 * filterable by type, paged by cursor; never another tenant's, never the relay's columns or the
 * trace context; a batch row is one item with its count and first event.
 */
const database = testDb();
const stack = useServiceBehindGateway(service);
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const ROWS = 8;
const LEAD_ROWS = 5;
const ITEM_KEYS = ['created_at', 'data', 'event_count', 'id', 'occurred_at', 'record', 'type'];

/** ROWS single events a minute apart: the first LEAD_ROWS lead.created, the rest deal.updated. */
async function seed(session: Session, marker: string) {
  await withSystemScope(database.db, (trx) =>
    sql`INSERT INTO event_outbox (id, tenant_id, type, envelope, created_at)
      SELECT e.id, e.tenant_id, e.type, json_build_object(
               'id', e.id, 'type', e.type, 'tenant_id', e.tenant_id,
               'occurred_at', to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
               'record', json_build_object('module', 'leads', 'id', 'rec-' || e.g),
               'data', json_build_object('marker', ${marker}::text, 'n', e.g),
               'trace', json_build_object('traceparent', 'tp-secret')), e.at
      FROM (SELECT gen_random_uuid() AS id, ${session.tenantId}::uuid AS tenant_id, g,
                   CASE WHEN g <= ${LEAD_ROWS} THEN 'lead.created' ELSE 'deal.updated' END AS type,
                   timestamptz '2026-11-01T00:00:00Z' + g * interval '1 minute' AS at
              FROM generate_series(1, ${ROWS}) g) e`.execute(trx),
  );
}

const get = (session: Session, query = '') =>
  request(stack.url).get(`/api/events${query}`).set('Cookie', session.cookie);

let owner: Session;
let other: Session;
let viewer: Session;
beforeAll(async () => {
  owner = await tenantSession(stack, database);
  other = await tenantSession(stack, database);
  viewer = await tenantSession(stack, database, 'viewer');
  await seed(owner, 'owner-tenant');
  await seed(other, 'other-tenant');
  await seed(viewer, 'viewer-tenant');
});

describe('GET /api/events', () => {
  it("lists the tenant's events newest first, with record, time and payload only", async () => {
    const res = await get(owner);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: ROWS, totalExact: true, page: 1, nextCursor: null });
    expect(res.body.items.map((e: { data: { n: number } }) => e.data.n)).toEqual([
      8, 7, 6, 5, 4, 3, 2, 1,
    ]);
    expect(res.body.items[0]).toEqual({
      id: expect.any(String),
      type: 'deal.updated',
      event_count: 1,
      record: { module: 'leads', id: 'rec-8' },
      occurred_at: '2026-11-01T00:08:00Z',
      created_at: '2026-11-01T00:08:00.000Z',
      data: { marker: 'owner-tenant', n: 8 },
    });
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('other-tenant');
    expect(text).not.toContain('tp-secret');
  });

  it('filters by type', async () => {
    const res = await get(owner, '?type=lead.created&pageSize=3');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(LEAD_ROWS);
    expect(res.body.items.map((e: { type: string }) => e.type)).toEqual(
      Array(3).fill('lead.created'),
    );
    const none = await get(owner, '?type=payment.failed');
    expect(none.body).toMatchObject({ items: [], total: 0 });
  });

  it('a bulk write is one item: its count and its first event', async () => {
    const session = await tenantSession(stack, database);
    const written = await withTenant(database.db, session.tenantId, (trx) =>
      writeEvents(
        trx,
        Array.from({ length: 150 }, (_, n) => ({
          type: 'lead.created',
          tenant_id: session.tenantId,
          record: { module: 'leads', id: `bulk-${n}` },
          data: { n },
        })),
      ),
    );
    const res = await get(session);
    expect(res.body.items).toEqual([
      {
        id: written[0].id,
        type: 'lead.created',
        event_count: 150,
        record: { module: 'leads', id: 'bulk-0' },
        occurred_at: written[0].occurred_at,
        created_at: expect.any(String),
        data: { n: 0 },
      },
    ]);
  });

  it('a viewer reads them; the list is not writable', async () => {
    expect((await get(viewer)).body.total).toBe(ROWS);
    const post = await request(stack.url)
      .post('/api/events')
      .set('Cookie', viewer.cookie)
      .send({ type: 'lead.created' });
    expect(post.status).toBe(403);
    expect(post.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
  });

  it('needs a session', async () => {
    const res = await request(stack.url).get('/api/events');
    expect(res.status).toBe(401);
  });

  it.each([
    ['?type=lead.bogus', /^Invalid filters: type: type must be given once, one of: lead\.created/],
    ['?type=lead.created&type=deal.updated', /^Invalid filters: type: type must be given once/],
    ['?sortBy=type', /^Invalid pagination parameters: sortBy: sortBy must be one of: created_at/],
    [
      '?cursor=not-a-cursor',
      new RegExp(`^${CURSOR_REFUSALS.altered.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    ],
  ])('%s -> 400 VALIDATION_ERROR', async (query, message) => {
    const res = await get(owner, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.message).toMatch(message);
  });

  it('GET /api/events/types: the filter’s choices', async () => {
    const res = await get(viewer, '/types');
    expect(res.status).toBe(200);
    expect(res.body.data.types).toEqual(expect.arrayContaining(['lead.created', 'deal.updated']));
  });

  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => '/api/events',
    owner: () => owner.cookie,
    other: () => other.cookie,
    rows: ROWS,
    sorts: ['created_at'],
    filter: { query: 'type=lead.created', rows: LEAD_ROWS },
  });
});
