import { listConversations, listDeals, listMessages } from '@crm/records';
import type { CursorPage } from '@crm/shared/pagination';
import { withSystemScope, withTenant, type Database } from '@crm/shared/db';
import { createTenant, testDb } from '@crm/test-kit';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { listForms } from '../src/forms/forms.repository';
import { listReceiverRecords } from '../src/receiver-records/receiver-records.repository';
import { RECEIVER_RESOURCES } from '../src/receiver-records/receiver-records.schema';

/**
 * Database tier: the first page of every receiver record list, of the conversation list, of
 * a conversation's messages and of the form list is read in order from its (tenant_id, column,
 * id) index (no Sort node, no sequential scan), on tables of 20,000 rows, and so is a page by
 * cursor: one range of that index, after the last row of the page before. Sequential and bitmap scans are switched
 * off for the EXPLAIN, as in libs/records' list index test: the question is whether an index
 * gives the order.
 */
const database = testDb();
afterAll(() => database.close());

const ROWS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The SELECT a list function sends, captured by a logging Kysely on the same pool. */
async function selectOf(run: (trx: never) => Promise<unknown>): Promise<CompiledQuery> {
  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && /^select/i.test(event.query.sql)) captured.push(event.query);
    },
  });
  await withTenant(logging, tenantId, (trx) => run(trx as never));
  expect(captured).toHaveLength(1);
  return captured[0];
}

async function scans(run: (trx: never) => Promise<unknown>) {
  return scansOfStatement(await selectOf(run));
}

async function scansOfStatement(query: CompiledQuery) {
  const nodes = await withTenant(database.db, tenantId, async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
  });
  return {
    // Each once: the capped count in the page's statement reads the page's index again.
    indexes: [...new Set(nodes.filter((n) => n['Index Name']).map((n) => n['Index Name']))],
    sorts: nodes.some((n) => /Sort/.test(n['Node Type'])),
    seqScan: nodes.some((n) => n['Node Type'] === 'Seq Scan'),
  };
}

const page = (sortBy: string, sortOrder: 'asc' | 'desc', cursor?: string) => ({
  page: 1,
  pageSize: 20,
  sortBy,
  sortOrder,
  cursor,
});

/**
 * The page after the first by its nextCursor: one statement, a row comparison after the first
 * page's last row, that reads `index` in order; no row of the first page again.
 */
async function expectCursorPageSeeks(
  list: (trx: never, cursor?: string) => Promise<CursorPage<object>>,
  index: string,
  /** Indexes the page also reads, after the list's (a conversation's details, by its key). */
  also: string[] = [],
) {
  const first = await withTenant(database.db, tenantId, (trx) => list(trx as never));
  expect(typeof first.nextCursor).toBe('string');
  let second: CursorPage<object> | undefined;
  const statement = await selectOf(async (trx) => {
    second = await list(trx, first.nextCursor as string);
  });
  expect(statement.sql).toMatch(/\) [<>] \(CAST\(/);
  expect(await scansOfStatement(statement)).toEqual({
    indexes: [index, ...also],
    sorts: false,
    seqScan: false,
  });
  expect(second?.page).toBe(2);
  expect(second?.items).toHaveLength(20);
  const idOf = (row: object) => (row as { id: string }).id;
  const firstIds = new Set(first.items.map(idOf));
  expect(second?.items.some((row) => firstIds.has(idOf(row)))).toBe(false);
}
const NO_RANGE = { from: undefined, to: undefined };
const CURSORS = { secret: 'explain test cursor secret' };

let tenantId: string;
let conversationId: string;
let contactId: string;
beforeAll(async () => {
  tenantId = (await createTenant(database)).id;
  const n = sql.lit(ROWS);
  await withSystemScope(database.db, async (trx) => {
    contactId = (
      await trx
        .insertInto('crm_contacts')
        .values({ tenant_id: tenantId, email: `ann-${tenantId}@example.com` })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const t = sql.val(tenantId);
    const at = sql`now() - g * interval '1 minute'`;
    await sql`WITH s AS (INSERT INTO storefront_connections (tenant_id, platform, shop_identifier)
        VALUES (${t}, 'storefront_a', ${`${tenantId}.shop`}) RETURNING id)
      INSERT INTO commerce_orders (tenant_id, connection_id, external_order_id, contact_id, created_at)
      SELECT ${t}, s.id, 'o' || g, CASE WHEN g % 100 = 0 THEN ${contactId}::uuid END, ${at}
      FROM s, generate_series(1, ${n}) g`.execute(trx);
    await sql`WITH c AS (INSERT INTO payment_connections (tenant_id, provider, webhook_secret_ciphertext)
        VALUES (${t}, 'stripe', 'sealed') RETURNING id)
      INSERT INTO payment_events (tenant_id, connection_id, provider, external_event_id, kind, contact_id, created_at)
      SELECT ${t}, c.id, 'stripe', 'e' || g, 'payment.succeeded',
        CASE WHEN g % 100 = 0 THEN ${contactId}::uuid END, ${at}
      FROM c, generate_series(1, ${n}) g`.execute(trx);
    await sql`INSERT INTO call_logs (tenant_id, call_id, status, created_at)
      SELECT ${t}, 'c' || g, 'completed', ${at} FROM generate_series(1, ${n}) g`.execute(trx);
    await sql`INSERT INTO email_messages (tenant_id, provider_message_id)
      VALUES (${t}, ${`${tenantId}-m`})`.execute(trx);
    for (const [table, extra, value] of [
      ['email_opens', sql``, sql``],
      ['email_clicks', sql`target_url,`, sql`'https://example.com',`],
      ['email_replies', sql``, sql``],
    ] as const) {
      await sql`INSERT INTO ${sql.table(table)} (tenant_id, message_id, ${extra} created_at)
        SELECT ${t}, m.id, ${value} ${at}
        FROM email_messages m, generate_series(1, ${n}) g WHERE m.tenant_id = ${t}`.execute(trx);
    }
    await sql`WITH a AS (INSERT INTO network_accounts (tenant_id, external_account_id)
        VALUES (${t}, ${`${tenantId}-acct`}) RETURNING id)
      INSERT INTO network_events (tenant_id, account_id, kind, event_type, payload, created_at)
      SELECT ${t}, a.id, 'network_profile_viewed', 'view', '{}', ${at}
      FROM a, generate_series(1, ${n}) g`.execute(trx);
    await sql`INSERT INTO chat_conversations (tenant_id, channel, external_id, last_message_at, created_at)
      SELECT ${t}, 'messaging', 'wa' || g, ${at}, ${at} FROM generate_series(1, ${n}) g`.execute(
      trx,
    );
    conversationId = (
      await trx
        .selectFrom('chat_conversations')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .limit(1)
        .executeTakeFirstOrThrow()
    ).id;
    await sql`INSERT INTO chat_messages (tenant_id, conversation_id, external_id, direction, sent_at)
      SELECT ${t}, ${conversationId}, ${`${tenantId}-`} || g, 'inbound', ${at}
      FROM generate_series(1, ${n}) g`.execute(trx);
    await sql`INSERT INTO crm_deals (tenant_id, title, stage, created_at)
      SELECT ${t}, 'Deal ' || g, (ARRAY['lead', 'qualified', 'won'])[g % 3 + 1], ${at}
      FROM generate_series(1, ${n}) g`.execute(trx);
    await sql`INSERT INTO crm_web_forms (tenant_id, slug, name, created_at, updated_at)
      SELECT ${t}, 'form-' || g, 'Form ' || g, ${at}, ${at} FROM generate_series(1, ${n}) g`.execute(
      trx,
    );
  });
  await sql`ANALYZE commerce_orders, payment_events, call_logs, email_messages, email_opens,
    email_clicks, email_replies, network_events, chat_conversations, chat_conversation_details,
    chat_messages, crm_web_forms, crm_deals`.execute(database.db);
}, 120_000);

describe('receiver record lists read their indexes', () => {
  it.each(RECEIVER_RESOURCES.map((r) => [r.path, r] as const))(
    '%s by created_at reads its _by_created index in order, either way',
    async (_path, resource) => {
      for (const order of ['asc', 'desc'] as const) {
        const plan = await scans((trx) =>
          listReceiverRecords(
            trx,
            tenantId,
            resource,
            page('created_at', order),
            {},
            NO_RANGE,
            CURSORS,
          ),
        );
        expect(plan).toEqual({
          indexes: [`${resource.table}_by_created`],
          sorts: false,
          seqScan: false,
        });
      }
    },
  );

  it.each([
    ['/api/crm/orders', 'commerce_orders_by_contact'],
    ['/api/crm/payments', 'payment_events_by_contact'],
  ])('%s of one contact reads %s in order', async (path, index) => {
    const resource = RECEIVER_RESOURCES.find((r) => r.path === path)!;
    const plan = await scans((trx) =>
      listReceiverRecords(
        trx,
        tenantId,
        resource,
        page('created_at', 'desc'),
        {
          contact_id: contactId,
        },
        NO_RANGE,
        CURSORS,
      ),
    );
    expect(plan).toEqual({ indexes: [index], sorts: false, seqScan: false });
  });

  it.each([
    ['created_at', 'chat_conversations_by_created'],
    ['last_message_at', 'chat_conversations_by_last_message'],
  ])('conversations by %s read %s in order, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans((trx) =>
        listConversations(trx, tenantId, page(sortBy, order) as never, {}, CURSORS),
      );
      expect(plan.indexes[0]).toBe(index);
      expect(plan).toMatchObject({ sorts: false, seqScan: false });
    }
  });

  it("a conversation's messages read chat_messages_by_conversation in sent_at order", async () => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans((trx) =>
        listMessages(trx, tenantId, conversationId, page('sent_at', order) as never, CURSORS),
      );
      expect(plan).toEqual({
        indexes: ['chat_messages_by_conversation'],
        sorts: false,
        seqScan: false,
      });
    }
  });
  it.each(RECEIVER_RESOURCES.map((r) => [r.path, r] as const))(
    'a cursor page of %s seeks in its _by_created index, either way',
    async (_path, resource) => {
      for (const order of ['asc', 'desc'] as const) {
        await expectCursorPageSeeks(
          (trx, cursor) =>
            listReceiverRecords(
              trx,
              tenantId,
              resource,
              page('created_at', order, cursor),
              {},
              NO_RANGE,
              CURSORS,
            ),
          `${resource.table}_by_created`,
        );
      }
    },
  );

  it.each([
    ['created_at', 'chat_conversations_by_created'],
    ['last_message_at', 'chat_conversations_by_last_message'],
  ])('a cursor page of conversations by %s seeks in %s, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      await expectCursorPageSeeks(
        (trx, cursor) =>
          listConversations(trx, tenantId, page(sortBy, order, cursor) as never, {}, CURSORS),
        index,
        ['chat_conversation_details_pkey'],
      );
    }
  });

  it("a cursor page of a conversation's messages seeks in chat_messages_by_conversation", async () => {
    for (const order of ['asc', 'desc'] as const) {
      await expectCursorPageSeeks(
        (trx, cursor) =>
          listMessages(
            trx,
            tenantId,
            conversationId,
            page('sent_at', order, cursor) as never,
            CURSORS,
          ),
        'chat_messages_by_conversation',
      );
    }
  });

  it.each([
    ['created_at', 'crm_web_forms_by_created'],
    ['updated_at', 'crm_web_forms_by_updated'],
    ['name', 'crm_web_forms_by_name'],
  ])('forms by %s read %s in order, by page and by cursor, either way', async (sortBy, index) => {
    for (const order of ['asc', 'desc'] as const) {
      const list = (trx: never, cursor?: string) =>
        listForms(trx, tenantId, page(sortBy, order, cursor) as never, {}, CURSORS);
      expect(await scans((trx) => list(trx))).toEqual({
        indexes: [index],
        sorts: false,
        seqScan: false,
      });
      await expectCursorPageSeeks(list, index);
    }
  });

  it('forms by slug read their unique (tenant_id, slug) key', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const plan = await scans((trx) =>
        listForms(trx, tenantId, page('slug', order) as never, {}, CURSORS),
      );
      // slug is unique: the id after it never reorders, but the planner does not know that.
      expect(plan).toMatchObject({ indexes: ['crm_web_forms_tenant_id_slug_key'], seqScan: false });
    }
  });
  it.each([
    [{}, 'crm_deals_by_created_at'],
    [{ stage: 'won' as const }, 'crm_deals_by_stage'],
  ])(
    'deals filtered by %j read %s newest first, and so does the slice after a cursor',
    async (filters, index) => {
      const list = (trx: never, cursor?: string) =>
        listDeals(trx, tenantId, { limit: 100, ...filters, cursor }, CURSORS);
      expect(await scans((trx) => list(trx))).toEqual({
        indexes: [index],
        sorts: false,
        seqScan: false,
      });
      const first = await withTenant(database.db, tenantId, (trx) => list(trx as never));
      expect(first.items).toHaveLength(100);
      const statement = await selectOf((trx) => list(trx, first.nextCursor as string));
      expect(statement.sql).toMatch(/\) < \(CAST\(/);
      expect(await scansOfStatement(statement)).toEqual({
        indexes: [index],
        sorts: false,
        seqScan: false,
      });
    },
  );
});
