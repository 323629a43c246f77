import { createHash, createHmac, randomUUID } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import {
  createTenant,
  insertRow,
  ledgerRows,
  outboxEvents,
  rowsWith,
  tenantRows,
  testDb,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * POST/GET /api/webhooks/network through the real gateway in front of a real
 * webhook-ingest, against real Postgres. Every stored row, outbox event and ledger row is
 * read back; every refused request is shown to write nothing: counted in the tenant it names
 * (other test files write network events and ledger rows at the same time), and for a delivery
 * that belongs to no tenant by its own event ids and its ledger row.
 */
const SECRET = 'network-receiver-test-secret';
const PATH = '/api/webhooks/network';
const database = testDb();
const stack = useReceiverStack({ NETWORK_WEBHOOK_SECRET: SECRET });
afterAll(() => database.close());

function signatureFor(raw: string, at = new Date(), secret = SECRET): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')}`;
}

function post(raw: string, signature: string | null = signatureFor(raw), base = stack.url) {
  const req = request(base).post(PATH).set('content-type', 'application/json');
  if (signature !== null) req.set('x-network-signature', signature);
  return req.send(raw);
}

const digestOf = (raw: string) => `sha256:${createHash('sha256').update(raw).digest('hex')}`;

async function ledgerOf(raw: string) {
  return (await ledgerRows(database, 'network')).filter((row) => row.delivery_id === digestOf(raw));
}

interface Envelope {
  type: string;
  tenant_id: string;
  record: { module: string; id: string };
  data: Record<string, unknown>;
}
async function activityEvents(tenantId: string): Promise<Envelope[]> {
  return (await outboxEvents(database, tenantId))
    .filter((event) => event.type === 'network.activity')
    .map((event) => event.envelope as Envelope);
}

/** A tenant with one connected network account (its partner id is unique per test). */
async function connectedAccount() {
  const tenant = await createTenant(database);
  const externalAccountId = `acc-${randomUUID()}`;
  const account = await insertRow(database, 'network_accounts', {
    proven_at: new Date(), // a proven claim: its deliveries are routed
    tenant_id: tenant.id,
    external_account_id: externalAccountId,
  });
  return { tenantId: tenant.id, accountId: account.id, externalAccountId };
}

/** What a delivery could write for a tenant: its network rows, network ledger rows, outbox events. */
async function writes(tenantId: string) {
  return {
    network_events: (await tenantRows(database, 'network_events', tenantId)).length,
    ledger: (await ledgerRows(database, 'network')).filter((row) => row.tenant_id === tenantId)
      .length,
    outbox: (await outboxEvents(database, tenantId)).length,
  };
}

const uid = () => randomUUID().slice(0, 8);

describe('GET /api/webhooks/network (readiness and challenge handshake)', () => {
  it('answers the readiness probe with { ok: true, status: "ready" }', async () => {
    const res = await request(stack.url).get(PATH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, status: 'ready' });
  });

  it('echoes the challenge value exactly, as text/plain', async () => {
    const res = await request(stack.url).get(PATH).query({ challenge: 'c-8f2 a+b=c/ü' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('c-8f2 a+b=c/ü');
  });

  it('reflects markup as inert text: text/plain with nosniff, from the service itself too', async () => {
    const markup = '<script>alert(document.cookie)</script>';
    for (const base of [stack.url, stack.serviceUrl]) {
      const res = await request(base).get(PATH).query({ challenge: markup });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.text).toBe(markup);
    }
  });

  it('refuses a repeated challenge with 400 (which one to echo is ambiguous)', async () => {
    const res = await request(stack.url).get(`${PATH}?challenge=a&challenge=b`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
  });
});

describe('POST one signed event', () => {
  it('stores it under the account tenant with its mapped kind, one outbox event and a ledger row', async () => {
    const account = await connectedAccount();
    const event = {
      id: `evt-${uid()}`,
      type: 'INVITATION_SENT',
      account_id: account.externalAccountId,
      occurred_at: '2024-04-30T09:15:00Z',
      actor: { name: 'Ann Example', profile_url: 'https://network.example/in/ann' },
    };
    const raw = JSON.stringify(event);
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, inserted: 1, unmatched: 0, unsupported: 0 });

    const rows = await tenantRows(database, 'network_events', account.tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        tenant_id: account.tenantId,
        account_id: account.accountId,
        external_event_id: event.id,
        kind: 'network_connection_sent',
        event_type: 'INVITATION_SENT',
        actor: event.actor,
        occurred_at: new Date('2024-04-30T09:15:00Z'),
        payload: event,
      }),
    ]);
    expect(await activityEvents(account.tenantId)).toEqual([
      expect.objectContaining({
        type: 'network.activity',
        tenant_id: account.tenantId,
        record: { module: 'network', id: rows[0].id },
        data: {
          network_event_id: rows[0].id,
          account_id: account.accountId,
          external_account_id: account.externalAccountId,
          external_event_id: event.id,
          kind: 'network_connection_sent',
          event_type: 'INVITATION_SENT',
          occurred_at: '2024-04-30T09:15:00.000Z',
        },
      }),
    ]);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({
        provider: 'network',
        tenant_id: account.tenantId,
        event_type: 'INVITATION_SENT',
        content_type: 'application/json',
        raw_body: raw,
        verification: 'verified',
        outcome: 'processed',
        detail: 'inserted 1, unmatched 0, unsupported 0',
      }),
    ]);
  });

  it('answers a redelivery (same bytes, signed again later) as a duplicate and writes nothing', async () => {
    const account = await connectedAccount();
    const raw = JSON.stringify({
      id: `evt-${uid()}`,
      type: 'MESSAGE_RECEIVED',
      account_id: account.externalAccountId,
    });
    expect((await post(raw)).body).toMatchObject({ inserted: 1 });
    const before = await writes(account.tenantId);

    const later = new Date(Date.now() + 60_000);
    const res = await post(raw, signatureFor(raw, later));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      inserted: 0,
      unmatched: 0,
      unsupported: 0,
      duplicate: true,
    });
    expect(await writes(account.tenantId)).toEqual(before);
  });

  it('skips an event already stored for the account when it comes in a new delivery', async () => {
    const account = await connectedAccount();
    const event = {
      id: `evt-${uid()}`,
      type: 'POST_REACTION',
      account_id: account.externalAccountId,
    };
    expect((await post(JSON.stringify(event))).body).toMatchObject({ inserted: 1 });

    const again = JSON.stringify({ events: [event] });
    const res = await post(again);
    expect(res.body).toEqual({ ok: true, inserted: 0, unmatched: 0, unsupported: 0 });
    expect(await tenantRows(database, 'network_events', account.tenantId)).toHaveLength(1);
    expect(await activityEvents(account.tenantId)).toHaveLength(1);
    expect(await ledgerOf(again)).toEqual([
      expect.objectContaining({
        outcome: 'ignored',
        tenant_id: account.tenantId,
        detail: 'inserted 0, unmatched 0, unsupported 0, already stored 1',
      }),
    ]);
  });
});

describe('POST a batch', () => {
  it('stores each event under its own tenant ({ events: [...] }), dropping unmatched and unsupported', async () => {
    const a = await connectedAccount();
    const b = await connectedAccount();
    const events = [
      { id: `a1-${uid()}`, type: 'MESSAGE_SENT', account_id: a.externalAccountId },
      { id: `b1-${uid()}`, type: 'PROFILE_VIEWED', account_id: b.externalAccountId },
      { id: `x1-${uid()}`, type: 'MESSAGE_SENT', account_id: `unknown-${uid()}` },
      { id: `a2-${uid()}`, type: 'POST_COMMENT', account_id: a.externalAccountId },
      { id: `a3-${uid()}`, type: 'GROUP_JOINED', account_id: a.externalAccountId },
    ];
    const raw = JSON.stringify({ events: [...events, 'not an event'] });
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, inserted: 3, unmatched: 1, unsupported: 2 });

    const rowsA = await tenantRows(database, 'network_events', a.tenantId);
    const rowsB = await tenantRows(database, 'network_events', b.tenantId);
    expect(rowsA.map((r) => [r.external_event_id, r.kind, r.account_id]).sort()).toEqual(
      [
        [events[0].id, 'network_message_sent', a.accountId],
        [events[3].id, 'network_post_comment', a.accountId],
      ].sort(),
    );
    expect(rowsB.map((r) => [r.external_event_id, r.kind, r.account_id])).toEqual([
      [events[1].id, 'network_profile_viewed', b.accountId],
    ]);
    expect((await activityEvents(a.tenantId)).map((e) => e.record.id).sort()).toEqual(
      rowsA.map((r) => r.id).sort(),
    );
    expect((await activityEvents(b.tenantId)).map((e) => e.record.id)).toEqual([rowsB[0].id]);
    // A delivery spanning tenants belongs to none of them in the ledger.
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({
        tenant_id: null,
        event_type: 'batch',
        outcome: 'processed',
        detail: 'inserted 3, unmatched 1, unsupported 2',
      }),
    ]);
  });

  it('accepts a top-level array; one tenant owns the ledger row; an id repeated in the batch is stored once', async () => {
    const account = await connectedAccount();
    const id = `evt-${uid()}`;
    const events = [
      { id, type: 'MESSAGE_SENT', account_id: account.externalAccountId },
      { id, type: 'MESSAGE_SENT', account_id: account.externalAccountId },
      { type: 'MESSAGE_SENT', account_id: account.externalAccountId },
      { type: 'MESSAGE_SENT', account_id: account.externalAccountId },
    ];
    const raw = JSON.stringify(events);
    expect((await post(raw)).body).toEqual({ ok: true, inserted: 3, unmatched: 0, unsupported: 0 });
    const rows = await tenantRows(database, 'network_events', account.tenantId);
    expect(rows.map((r) => r.external_event_id).sort()).toEqual([id, null, null].sort());
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({ tenant_id: account.tenantId, outcome: 'processed' }),
    ]);
  });

  it('answers a batch matching no account with its counts; ledger outcome unmatched', async () => {
    const events = [
      { id: `x-${uid()}`, type: 'MESSAGE_SENT', account_id: `unknown-${uid()}` },
      { id: `y-${uid()}`, type: 'MESSAGE_SENT' },
      { id: `z-${uid()}`, type: 'NOT_A_TYPE', account_id: `unknown-${uid()}` },
    ];
    const raw = JSON.stringify({ events });
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, inserted: 0, unmatched: 2, unsupported: 1 });
    const ids = events.map((event) => event.id);
    expect(await rowsWith(database, 'network_events', 'external_event_id', ids)).toEqual([]);
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({ tenant_id: null, outcome: 'unmatched' }),
    ]);
  });

  it('acknowledges a delivery of only unsupported events; ledger outcome ignored', async () => {
    const raw = JSON.stringify([{ type: `NEW_KIND_${uid()}` }, 17, null]);
    const res = await post(raw);
    expect(res.body).toEqual({ ok: true, inserted: 0, unmatched: 0, unsupported: 3 });
    expect(await ledgerOf(raw)).toEqual([
      expect.objectContaining({ tenant_id: null, outcome: 'ignored' }),
    ]);
  });

  it('accepts 5,000 events in one delivery', async () => {
    const raw = JSON.stringify({ tag: uid(), events: new Array(5000).fill({ type: 'UNKNOWN' }) });
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, inserted: 0, unmatched: 0, unsupported: 5000 });
  });

  it('stores values Postgres text cannot hold (NUL, lone surrogates) replaced, and an unreadable time as null', async () => {
    const account = await connectedAccount();
    const raw =
      `{"id":"nul-${uid()}\\u0000","type":"MESSAGE_RECEIVED","account_id":"${account.externalAccountId}",` +
      `"occurred_at":"not a time","actor":{"name\\u0000":"\\udc00Ann"},"text":"a\\u0000b"}`;
    const res = await post(raw);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, inserted: 1, unmatched: 0, unsupported: 0 });
    const [row] = await tenantRows(database, 'network_events', account.tenantId);
    expect(row.external_event_id).toMatch(/^nul-[0-9a-f]{8}\uFFFD$/);
    expect(row.actor).toEqual({ 'name\uFFFD': '\uFFFDAnn' });
    expect(row.occurred_at).toBeNull();
    expect(row.payload).toMatchObject({ text: 'a\uFFFDb', occurred_at: 'not a time' });
    // The ledger keeps the exact bytes received.
    expect((await ledgerOf(raw))[0].raw_body).toBe(raw);
  });
});

describe('a batch of 1,200 events', () => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
  const counter = `test_network_insert_statements_${suffix}`;
  const fn = `test_count_network_inserts_${suffix}`;

  // Counts INSERT statements on network_events (with the rows each wrote, per tenant) from a
  // statement-level trigger; other tests' inserts are told apart by their tenant.
  beforeAll(async () => {
    await sql
      .raw(
        `CREATE TABLE ${counter} (tenant_id uuid NOT NULL, row_count integer NOT NULL, seq bigserial);
         CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
         BEGIN
           INSERT INTO ${counter} (tenant_id, row_count) SELECT tenant_id, count(*) FROM inserted_rows GROUP BY tenant_id;
           RETURN NULL;
         END $$;
         CREATE TRIGGER ${fn} AFTER INSERT ON network_events REFERENCING NEW TABLE AS inserted_rows
           FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();`,
      )
      .execute(database.db);
  });
  afterAll(async () => {
    await sql
      .raw(
        `DROP TRIGGER IF EXISTS ${fn} ON network_events; DROP FUNCTION IF EXISTS ${fn}(); DROP TABLE IF EXISTS ${counter};`,
      )
      .execute(database.db);
  });

  it('inserts the 1,100 matched events in exactly three INSERT statements (500 + 500 + 100)', async () => {
    const account = await connectedAccount();
    const second = await insertRow(database, 'network_accounts', {
      proven_at: new Date(), // a proven claim: its deliveries are routed
      tenant_id: account.tenantId,
      external_account_id: `acc2-${uid()}`,
    });
    const secondExternal = (
      await withSystemScope(database.db, (trx) =>
        trx
          .selectFrom('network_accounts')
          .select('external_account_id')
          .where('id', '=', second.id)
          .executeTakeFirstOrThrow(),
      )
    ).external_account_id;
    const types = Object.keys({
      INVITATION_SENT: 0,
      INVITATION_ACCEPTED: 0,
      MESSAGE_SENT: 0,
      MESSAGE_RECEIVED: 0,
      PROFILE_VIEWED: 0,
      POST_REACTION: 0,
      POST_COMMENT: 0,
    });
    const unsupportedShapes = [
      42,
      { id: 'u', type: 'GROUP_JOINED', account_id: account.externalAccountId },
      { id: 'v' },
    ];
    const events: unknown[] = [];
    const expectedIds: string[] = [];
    for (let i = 0; i < 1200; i += 1) {
      if (i % 30 === 0)
        events.push(unsupportedShapes[(i / 30) % 3]); // 40 unsupported
      else if (i % 20 === 1) {
        events.push({ id: `m-${i}`, type: 'MESSAGE_SENT', account_id: `unknown-${suffix}` }); // 60
      } else {
        const id = `big-${suffix}-${i}`;
        expectedIds.push(id);
        events.push({
          id,
          type: types[i % types.length],
          account_id: i % 2 ? account.externalAccountId : secondExternal,
          occurred_at: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
        });
      }
    }
    expect(expectedIds).toHaveLength(1100);

    const res = await post(JSON.stringify({ events }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, inserted: 1100, unmatched: 60, unsupported: 40 });

    const { rows: statements } = await sql<{ row_count: number }>`
      SELECT row_count FROM ${sql.table(counter)} WHERE tenant_id = ${account.tenantId} ORDER BY seq`.execute(
      database.db,
    );
    expect(statements.map((s) => s.row_count)).toEqual([500, 500, 100]);

    const rows = await tenantRows(database, 'network_events', account.tenantId);
    expect(rows.map((r) => r.external_event_id).sort()).toEqual([...expectedIds].sort());
    expect(new Set(rows.map((r) => r.account_id))).toEqual(new Set([account.accountId, second.id]));
    const events_ = await activityEvents(account.tenantId);
    expect(events_).toHaveLength(1100);
    expect(new Set(events_.map((e) => e.record.id))).toEqual(new Set(rows.map((r) => r.id)));
  });
});

describe('refused deliveries write nothing', () => {
  let account: Awaited<ReturnType<typeof connectedAccount>>;
  let raw: string;
  beforeAll(async () => {
    account = await connectedAccount();
    raw = JSON.stringify({
      id: `evt-${uid()}`,
      type: 'MESSAGE_SENT',
      account_id: account.externalAccountId,
    });
  });

  const INVALID_SIGNATURE = { success: false, error: 'Invalid signature', code: 'UNAUTHORIZED' };

  it.each([
    [
      'no x-network-signature header',
      () => post(raw, null),
      'The x-network-signature header is required',
    ],
    [
      'a malformed header',
      () => post(raw, 'sha256=abc'),
      'The x-network-signature header must be t=<unix seconds>,v1=<hex HMAC-SHA256>',
    ],
    [
      'a signature made with another secret',
      () => post(raw, signatureFor(raw, new Date(), 'wrong')),
      'The signature does not match the request body',
    ],
    [
      'a body altered after signing',
      () => post(raw.replace('MESSAGE_SENT', 'MESSAGE_RECEIVED'), signatureFor(raw)),
      'The signature does not match the request body',
    ],
    [
      'a timestamp 6 minutes old',
      () => post(raw, signatureFor(raw, new Date(Date.now() - 360_000))),
      "The signature timestamp is more than 300 seconds from the server's clock",
    ],
    [
      'a timestamp 6 minutes ahead',
      () => post(raw, signatureFor(raw, new Date(Date.now() + 360_000))),
      "The signature timestamp is more than 300 seconds from the server's clock",
    ],
  ])('%s: 401', async (_case, send, message) => {
    const before = await writes(account.tenantId);
    const res = await send();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ...INVALID_SIGNATURE, message, details: null });
    expect(await writes(account.tenantId)).toEqual(before);
    expect(await ledgerOf(raw)).toEqual([]);
  });

  it.each([
    ['a body that is not JSON', '{"id":', 'The request body is not valid JSON'],
    [
      'a JSON string',
      '"MESSAGE_SENT"',
      'The body must be an event object, { events: [...] } or an array of events',
    ],
    [
      'events that is not an array',
      '{"events":{"type":"MESSAGE_SENT"}}',
      '`events` must be an array of events',
    ],
    [
      'more than 5,000 events',
      JSON.stringify({ events: new Array(5001).fill({ type: 'MESSAGE_SENT' }) }),
      'A delivery may carry at most 5000 events',
    ],
  ])('%s (verified): 400 Webhook processing failed', async (_case, body, message) => {
    const before = await writes(account.tenantId);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message,
    });
    expect(await writes(account.tenantId)).toEqual(before);
    expect(await ledgerOf(body)).toEqual([]);
  });
});

describe('with NETWORK_WEBHOOK_SECRET unset', () => {
  const bare = useReceiverStack({});

  it('refuses every POST with 503 Webhook secret not configured, writing nothing; GET still answers', async () => {
    const account = await connectedAccount();
    const raw = JSON.stringify({
      id: `evt-${uid()}`,
      type: 'MESSAGE_SENT',
      account_id: account.externalAccountId,
    });
    const before = await writes(account.tenantId);
    for (const signature of [signatureFor(raw), null]) {
      const res = await post(raw, signature, bare.url);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'Webhook secret not configured',
        code: 'SERVICE_UNAVAILABLE',
        message: 'The network receiver has no signing secret configured',
        details: null,
      });
    }
    expect(await writes(account.tenantId)).toEqual(before);
    expect(await ledgerOf(raw)).toEqual([]);
    expect((await request(bare.url).get(PATH)).body).toEqual({ ok: true, status: 'ready' });
  });
});
