import { withSystemScope } from '@crm/shared/db';
import {
  CURSOR_REFUSALS,
  itKeepsTheCursorContract,
  tenantSession,
  testDb,
  type CursorListContract,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { RECEIVER_RESOURCES } from '../src/receiver-records/receiver-records.schema';
import { useStack } from './support/stack';

/*
 * Every crm-api list beside leads and contacts pages by keyset too (docs/api.md, CursorPage):
 * products, activities, conversations, a conversation's messages, the receiver record lists and
 * forms each keep the shared cursor contract (libs/test-kit, itKeepsTheCursorContract) on rows
 * of their own, through the real gateway. Two tenants get the same rows; sort keys are shared in
 * pairs (the id breaks the tie) and the nullable ones are missing on some rows.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Session = Awaited<ReturnType<typeof tenantSession>>;
const ROWS = 8;
/** Row g's time: pairs share one (g / 2 in whole minutes after the base). */
const BASE = '2026-11-01T00:00:00Z';
const at = sql`timestamptz '2026-11-01T00:00:00Z' + (g / 2) * interval '1 minute'`;
/** `from` keeping rows 4..8 of a receiver list (created at minute 2 and later). */
const FROM = '2026-11-01T00:02:00Z';

interface Seeded {
  session: Session;
  /** The conversation whose messages are seeded, and another with none. */
  conversationId: string;
  quietConversationId: string;
}

async function seed(session: Session): Promise<Seeded> {
  const t = session.tenantId;
  return withSystemScope(database.db, async (trx) => {
    const g = sql`generate_series(1, ${sql.lit(ROWS)}) g`;
    await sql`INSERT INTO crm_products (tenant_id, sku, name, created_at)
      SELECT ${t}, 'SKU-' || (9 - g), 'Product ' || g, ${at} FROM ${g}`.execute(trx);
    const contact = await trx
      .insertInto('crm_contacts')
      .values({ tenant_id: t, email: `about-${t}@example.com` })
      .returning('id')
      .executeTakeFirstOrThrow();
    await sql`INSERT INTO crm_activities (tenant_id, type, occurred_at, contact_id)
      SELECT ${t}, 'note', ${at}, CASE WHEN g <= 3 THEN ${contact.id}::uuid END
      FROM ${g}`.execute(trx);
    // Three on another channel (the filter); every third has had no message yet.
    await sql`INSERT INTO chat_conversations (tenant_id, channel, external_id, last_message_at, created_at)
      SELECT ${t}, CASE WHEN g <= 3 THEN 'sms' ELSE 'messaging' END, 'wa' || g,
             CASE WHEN g % 3 <> 0 THEN ${at} END, ${at}
      FROM ${g}`.execute(trx);
    const conversations = await trx
      .selectFrom('chat_conversations')
      .select('id')
      .where('tenant_id', '=', t)
      .where('external_id', 'in', ['wa1', 'wa2'])
      .orderBy('external_id')
      .execute();
    // Every fourth message has no time from its provider.
    await sql`INSERT INTO chat_messages (tenant_id, conversation_id, external_id, direction, sent_at)
      SELECT ${t}, ${conversations[0].id}, ${`${t}-m`} || g, 'inbound',
             CASE WHEN g % 4 <> 0 THEN ${at} END
      FROM ${g}`.execute(trx);
    await sql`WITH s AS (INSERT INTO storefront_connections (tenant_id, platform, shop_identifier)
        VALUES (${t}, 'storefront_a', ${`${t}.shop`}) RETURNING id)
      INSERT INTO commerce_orders (tenant_id, connection_id, external_order_id, created_at)
      SELECT ${t}, s.id, 'o' || g, ${at} FROM s, ${g}`.execute(trx);
    await sql`WITH c AS (INSERT INTO payment_connections (tenant_id, provider, webhook_secret_ciphertext)
        VALUES (${t}, 'stripe', 'sealed') RETURNING id)
      INSERT INTO payment_events (tenant_id, connection_id, provider, external_event_id, kind, created_at)
      SELECT ${t}, c.id, 'stripe', ${`${t}-e`} || g, 'payment.succeeded', ${at}
      FROM c, ${g}`.execute(trx);
    await sql`INSERT INTO call_logs (tenant_id, call_id, status, created_at)
      SELECT ${t}, ${`${t}-c`} || g, 'completed', ${at} FROM ${g}`.execute(trx);
    await sql`INSERT INTO email_messages (tenant_id, provider_message_id)
      VALUES (${t}, ${`${t}-m`})`.execute(trx);
    for (const [table, extra, value] of [
      ['email_opens', sql``, sql``],
      ['email_clicks', sql`target_url,`, sql`'https://example.com',`],
      ['email_replies', sql``, sql``],
    ] as const) {
      await sql`INSERT INTO ${sql.table(table)} (tenant_id, message_id, ${extra} created_at)
        SELECT ${t}, m.id, ${value} ${at}
        FROM email_messages m, ${g} WHERE m.tenant_id = ${t}`.execute(trx);
    }
    await sql`WITH a AS (INSERT INTO network_accounts (tenant_id, external_account_id)
        VALUES (${t}, ${`${t}-acct`}) RETURNING id)
      INSERT INTO network_events (tenant_id, account_id, kind, event_type, payload, created_at)
      SELECT ${t}, a.id, 'network_profile_viewed', 'view', '{}', ${at} FROM a, ${g}`.execute(trx);
    // Three won (the stage filter), the rest qualified.
    await sql`INSERT INTO crm_deals (tenant_id, title, stage, created_at)
      SELECT ${t}, 'Deal ' || g, CASE WHEN g <= 3 THEN 'won' ELSE 'qualified' END, ${at}
      FROM ${g}`.execute(trx);
    // Names shared in threes, updated in the other order than created; three disabled.
    await sql`INSERT INTO crm_web_forms (tenant_id, slug, name, enabled, created_at, updated_at)
      SELECT ${t}, 'form-' || g, 'Form ' || (g % 3), g > 3, ${at},
             ${BASE}::timestamptz + ((9 - g) / 3) * interval '1 minute'
      FROM ${g}`.execute(trx);
    return {
      session,
      conversationId: conversations[0].id,
      quietConversationId: conversations[1].id,
    };
  });
}

let owner: Seeded;
let other: Seeded;
beforeAll(async () => {
  owner = await seed(await tenantSession(stack, database));
  other = await seed(await tenantSession(stack, database));
});

/** A first page of the product list that has a nextCursor: another list's cursor. */
const PRODUCTS_PAGE = '/api/crm/products?sortBy=created_at&sortOrder=asc&pageSize=1';
const ORDERS_PAGE = '/api/crm/orders?sortBy=created_at&sortOrder=asc&pageSize=1';

const contract = (
  path: string,
  rest: Partial<CursorListContract> & Pick<CursorListContract, 'sorts'>,
): CursorListContract => ({
  url: () => stack.url,
  path: () => path,
  owner: () => owner.session.cookie,
  other: () => other.session.cookie,
  rows: ROWS,
  otherList: () => PRODUCTS_PAGE,
  ...rest,
});

describe('GET /api/crm/products by cursor', () => {
  itKeepsTheCursorContract(
    contract('/api/crm/products', { sorts: ['created_at', 'sku'], otherList: () => ORDERS_PAGE }),
  );
});

describe('GET /api/crm/activities by cursor', () => {
  let contactId: string;
  beforeAll(async () => {
    const res = await request(stack.url)
      .get('/api/crm/contacts')
      .set('Cookie', owner.session.cookie);
    contactId = res.body.items[0].id;
  });
  itKeepsTheCursorContract({
    ...contract('/api/crm/activities', { sorts: ['occurred_at'] }),
    filter: {
      get query() {
        return `contact_id=${contactId}`;
      },
      rows: 3,
    },
  });
});

describe('GET /api/crm/conversations by cursor', () => {
  itKeepsTheCursorContract(
    contract('/api/crm/conversations', {
      sorts: ['created_at', 'last_message_at'],
      filter: { query: 'channel=sms', rows: 3 },
    }),
  );
});

describe('GET /api/crm/conversations/:id/messages by cursor (oldest first within a page)', () => {
  itKeepsTheCursorContract({
    ...contract('', { sorts: ['sent_at'], descPagesReadBackwards: true }),
    path: () => `/api/crm/conversations/${owner.conversationId}/messages`,
    otherPath: () => `/api/crm/conversations/${other.conversationId}/messages`,
  });

  it("a cursor of one conversation's messages is refused by another's", async () => {
    const first = await request(stack.url)
      .get(`/api/crm/conversations/${owner.conversationId}/messages?pageSize=3`)
      .set('Cookie', owner.session.cookie);
    const res = await request(stack.url)
      .get(
        `/api/crm/conversations/${owner.quietConversationId}/messages?cursor=${encodeURIComponent(
          first.body.nextCursor,
        )}`,
      )
      .set('Cookie', owner.session.cookie);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: CURSOR_REFUSALS.otherList,
    });
  });

  it('the newest page reads oldest first, and its cursor leads on to older messages', async () => {
    const first = await request(stack.url)
      .get(`/api/crm/conversations/${owner.conversationId}/messages?pageSize=3`)
      .set('Cookie', owner.session.cookie);
    const times = (items: Array<{ sent_at: string | null }>) => items.map((m) => m.sent_at);
    // Newest first in list order: the two messages without a time lead (as their index holds
    // them, NULLs first descending), then minute 3; the page shows them the other way round.
    expect(times(first.body.items)).toEqual(['2026-11-01T00:03:00.000Z', null, null]);
    const second = await request(stack.url)
      .get(
        `/api/crm/conversations/${owner.conversationId}/messages?pageSize=3&cursor=${encodeURIComponent(
          first.body.nextCursor,
        )}`,
      )
      .set('Cookie', owner.session.cookie);
    expect(times(second.body.items)).toEqual([
      '2026-11-01T00:01:00.000Z',
      '2026-11-01T00:02:00.000Z',
      '2026-11-01T00:03:00.000Z',
    ]);
  });
});

describe.each(RECEIVER_RESOURCES.map((r) => [r.path] as const))('GET %s by cursor', (path) => {
  itKeepsTheCursorContract(
    contract(path, {
      sorts: ['created_at'],
      filter: { query: `from=${FROM}`, rows: 5 },
      otherList: () => (path === '/api/crm/orders' ? PRODUCTS_PAGE : ORDERS_PAGE),
    }),
  );
});

describe('GET /api/crm/forms by cursor', () => {
  itKeepsTheCursorContract(
    contract('/api/crm/forms', {
      sorts: ['created_at', 'updated_at', 'name', 'slug'],
      filter: { query: 'enabled=false', rows: 3 },
    }),
  );
});

describe('GET /api/crm/deals by cursor (the { deals } list: limit and cursor, no page)', () => {
  interface DealsBody {
    deals: Array<{ id: string; stage: string; created_at: string }>;
    nextCursor: string | null;
  }
  const deals = (cookie: string, query: string) =>
    request(stack.url).get(`/api/crm/deals?${query}`).set('Cookie', cookie);

  async function walk(cookie: string, query: string): Promise<DealsBody[]> {
    const answers: DealsBody[] = [];
    let res = await deals(cookie, query);
    for (;;) {
      expect(res.status).toBe(200);
      answers.push(res.body as DealsBody);
      const next = (res.body as DealsBody).nextCursor;
      if (!next) return answers;
      expect(answers.length).toBeLessThanOrEqual(ROWS);
      res = await deals(cookie, `${query}&cursor=${encodeURIComponent(next)}`);
    }
  }

  it('walking nextCursor yields every deal once, newest first, as one big answer', async () => {
    const whole = (await deals(owner.session.cookie, 'limit=100')).body as DealsBody;
    expect(Object.keys(whole).sort()).toEqual(['deals', 'nextCursor']);
    expect(whole.deals).toHaveLength(ROWS);
    expect(whole.nextCursor).toBeNull();
    const answers = await walk(owner.session.cookie, 'limit=3');
    expect(answers.map((a) => a.deals.length)).toEqual([3, 3, 2]);
    const walked = answers.flatMap((a) => a.deals.map((d) => d.id));
    expect(new Set(walked).size).toBe(ROWS);
    expect(walked).toEqual(whole.deals.map((d) => d.id));
    const times = whole.deals.map((d) => d.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('a cursor keeps its stage; sent with another stage it is a 400 saying so', async () => {
    const answers = await walk(owner.session.cookie, 'stage=won&limit=2');
    const walked = answers.flatMap((a) => a.deals);
    expect(walked).toHaveLength(3);
    expect(walked.every((d) => d.stage === 'won')).toBe(true);
    const refused = await deals(
      owner.session.cookie,
      `stage=qualified&limit=2&cursor=${encodeURIComponent(answers[0].nextCursor as string)}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: CURSOR_REFUSALS.otherList,
    });
  });

  it("an altered cursor, another tenant's or another list's is a 400 saying so", async () => {
    const mine = (await deals(owner.session.cookie, 'limit=3')).body as DealsBody;
    const theirs = (await deals(other.session.cookie, 'limit=3')).body as DealsBody;
    const products = await request(stack.url)
      .get('/api/crm/products?sortBy=created_at&sortOrder=desc&pageSize=1')
      .set('Cookie', owner.session.cookie);
    const [body, signature] = (mine.nextCursor as string).split('.');
    for (const bad of [
      `${body}.${signature.slice(1)}`,
      'not-a-cursor',
      theirs.nextCursor as string,
      products.body.nextCursor as string,
    ]) {
      const res = await deals(owner.session.cookie, `limit=3&cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: CURSOR_REFUSALS.altered,
      });
    }
  });

  it("another tenant's deals never show", async () => {
    const mine = (await walk(owner.session.cookie, 'limit=3')).flatMap((a) => a.deals);
    const theirs = (await walk(other.session.cookie, 'limit=3')).flatMap((a) => a.deals);
    const mineIds = new Set(mine.map((d) => d.id));
    expect(theirs).toHaveLength(ROWS);
    expect(theirs.filter((d) => mineIds.has(d.id))).toEqual([]);
  });
});
