import { withSystemScope, withTenant, type Database } from '@crm/shared/db';
import { createTenant, isolatedTestDb } from '@crm/test-kit';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { readTimeline, type TimelinePosition, type TimelineRecordKind } from '@crm/records';

/**
 * Database tier: a timeline page is one statement, and on tables of tens of thousands of rows
 * (a thousand people's history) every source is read from its (tenant_id, link, time, id)
 * index for the one record, never scanned: the plan is the planner's own choice on analysed
 * tables, nothing switched off. Checked with and without a cursor, for a lead and a contact.
 */
let database: Awaited<ReturnType<typeof isolatedTestDb>>;
let tenantId: string;
let leadId: string;
let contactId: string;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The statements one timeline read sends, captured by a logging Kysely on the same pool. */
async function statementsOf(
  kind: TimelineRecordKind,
  recordId: string,
  after?: TimelinePosition,
): Promise<CompiledQuery[]> {
  const captured: CompiledQuery[] = [];
  const logging = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (
        event.level === 'query' &&
        /^\s*(\/\*[^*]*\*\/\s*)?(select|with)\b/i.test(event.query.sql)
      ) {
        captured.push(event.query);
      }
    },
  });
  const rows = await withTenant(logging, tenantId, (trx) =>
    readTimeline(trx, tenantId, kind, recordId, 50, after),
  );
  expect(rows?.length).toBeGreaterThan(0);
  return captured;
}

/** Each table the plan reads, with the index it reads it by (none for a scan of the table). */
async function accessesOf(query: CompiledQuery): Promise<string[]> {
  return withTenant(database.db, tenantId, async (trx) => {
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.parameters]),
    );
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan)
      .filter((n) => n['Relation Name'])
      .map((n) => `${n['Relation Name']} ${n['Index Name'] ?? `(${n['Node Type']})`}`)
      .sort();
  });
}

const EMAIL_EVENTS = [
  'email_clicks email_clicks_by_message_time',
  'email_opens email_opens_by_message_time',
  'email_replies email_replies_by_message_time',
];
const CALLS = ['call_logs call_logs_by_from_number', 'call_logs call_logs_by_to_number'];

const LEAD_ACCESSES = [
  'crm_leads crm_leads_pkey',
  'crm_form_submissions crm_form_submissions_by_lead',
  'crm_web_forms crm_web_forms_pkey',
  'crm_deals crm_deals_by_lead',
  'crm_activities crm_activities_by_lead',
  // email_sent, and the messages whose opens, clicks and replies are read.
  ...Array(4).fill('email_messages email_messages_by_lead'),
  ...EMAIL_EVENTS,
  'chat_conversation_details chat_conversation_details_by_contact_email',
  'chat_messages chat_messages_by_conversation_time',
  ...CALLS,
  'commerce_orders commerce_orders_by_email',
  'payment_events payment_events_by_email',
].sort();

const CONTACT_ACCESSES = [
  'crm_contacts crm_contacts_pkey',
  'crm_deals crm_deals_by_contact',
  'crm_activities crm_activities_by_contact',
  ...Array(4).fill('email_messages email_messages_by_contact'),
  ...EMAIL_EVENTS,
  'chat_conversation_details chat_conversation_details_by_contact',
  'chat_messages chat_messages_by_conversation_time',
  ...CALLS,
  'commerce_orders commerce_orders_by_contact',
  'payment_events payment_events_by_contact',
].sort();

const PEOPLE = 1000;
const ROWS = 20_000;

beforeAll(async () => {
  database = await isolatedTestDb();
  tenantId = (await createTenant(database)).id;
  const t = tenantId;
  await withSystemScope(database.db, async (trx) => {
    const run = (query: ReturnType<typeof sql>) => query.execute(trx);
    // People: lead n and contact n share email n and phone n.
    await run(sql`INSERT INTO crm_leads (tenant_id, email, phone)
      SELECT ${t}, 'p' || g || '@example.com', '+1 555 ' || (1000000 + g)
      FROM generate_series(1, ${PEOPLE}) g`);
    await run(sql`INSERT INTO crm_contacts (tenant_id, email, phone)
      SELECT ${t}, 'p' || g || '@example.com', '+1 555 ' || (1000000 + g)
      FROM generate_series(1, ${PEOPLE}) g`);
    await run(sql`CREATE TEMP TABLE people ON COMMIT DROP AS
      SELECT row_number() OVER (ORDER BY l.email) - 1 AS n, l.id AS lead_id, c.id AS contact_id,
        l.email, '+1555' || substr(l.phone, 8) AS phone
      FROM crm_leads l JOIN crm_contacts c USING (tenant_id, email) WHERE l.tenant_id = ${t}`);
    // Row g of each source belongs to person g mod PEOPLE; its time steps back a minute a row.
    const person = sql`JOIN people p ON p.n = g % ${PEOPLE}`;
    const at = sql`now() - g * interval '1 minute'`;
    const series = sql`generate_series(1, ${ROWS}) g`;
    // A tenant's forms: a few hundred, so joining a submission to its form is a key lookup.
    await run(sql`INSERT INTO crm_web_forms (tenant_id, slug, name)
      SELECT ${t}, 'f' || f, 'Form ' || f FROM generate_series(0, 499) f`);
    await run(sql`INSERT INTO crm_form_submissions (tenant_id, form_id, lead_id, payload, created_at)
      SELECT ${t}, f.id, p.lead_id, '{}', ${at} FROM ${series} ${person}
      JOIN crm_web_forms f ON f.tenant_id = ${t} AND f.slug = 'f' || (g % 500)`);
    await run(sql`INSERT INTO crm_deals (tenant_id, title, lead_id, contact_id, created_at)
      SELECT ${t}, 'D' || g, CASE WHEN g % 2 = 0 THEN p.lead_id END,
        CASE WHEN g % 2 = 1 THEN p.contact_id END, ${at} FROM ${series} ${person}`);
    await run(sql`INSERT INTO crm_activities (tenant_id, type, lead_id, contact_id, occurred_at)
      SELECT ${t}, 'note', CASE WHEN g % 2 = 0 THEN p.lead_id END,
        CASE WHEN g % 2 = 1 THEN p.contact_id END, ${at} FROM ${series} ${person}`);
    await run(sql`INSERT INTO email_messages (tenant_id, provider_message_id, lead_id, contact_id, sent_at)
      SELECT ${t}, 'pm-' || g, CASE WHEN g % 2 = 0 THEN p.lead_id END,
        CASE WHEN g % 2 = 1 THEN p.contact_id END, ${at} FROM ${series} ${person}`);
    for (const [table, extra, value] of [
      ['email_opens', sql``, sql``],
      ['email_clicks', sql`target_url,`, sql`'https://example.com',`],
      ['email_replies', sql``, sql``],
    ] as const) {
      await run(sql`INSERT INTO ${sql.table(table)} (tenant_id, message_id, ${extra} occurred_at)
        SELECT ${t}, m.id, ${value} m.sent_at + interval '1 second'
        FROM email_messages m WHERE m.tenant_id = ${t}`);
    }
    await run(sql`INSERT INTO chat_conversations (tenant_id, external_id)
      SELECT ${t}, 'c' || n FROM people`);
    await run(sql`INSERT INTO chat_conversation_details (conversation_id, tenant_id, contact_id, contact_email)
      SELECT c.id, ${t}, p.contact_id, p.email
      FROM people p JOIN chat_conversations c ON c.tenant_id = ${t} AND c.external_id = 'c' || p.n`);
    await run(sql`INSERT INTO chat_messages (tenant_id, conversation_id, external_id, direction, sent_at)
      SELECT ${t}, c.id, 'cm-' || g, 'inbound', ${at} FROM ${series} ${person}
      JOIN chat_conversations c ON c.tenant_id = ${t} AND c.external_id = 'c' || p.n`);
    await run(sql`INSERT INTO call_logs (tenant_id, call_id, from_number, to_number, status, created_at)
      SELECT ${t}, 'call-' || g, CASE WHEN g % 2 = 0 THEN p.phone ELSE '+15550000000' END,
        CASE WHEN g % 2 = 1 THEN p.phone ELSE '+15550000000' END, 'completed', ${at}
      FROM ${series} ${person}`);
    const shop = await sql<{ id: string }>`INSERT INTO storefront_connections
      (tenant_id, platform, shop_identifier) VALUES (${t}, 'storefront_a', 's') RETURNING id`.execute(
      trx,
    );
    await run(sql`INSERT INTO commerce_orders (tenant_id, connection_id, external_order_id, email, contact_id, created_at)
      SELECT ${t}, ${shop.rows[0].id}, 'o' || g, p.email, p.contact_id, ${at}
      FROM ${series} ${person}`);
    const pay = await sql<{ id: string }>`INSERT INTO payment_connections
      (tenant_id, provider, webhook_secret_ciphertext) VALUES (${t}, 'stripe', 'x') RETURNING id`.execute(
      trx,
    );
    await run(sql`INSERT INTO payment_events (tenant_id, connection_id, provider, external_event_id, kind, email, contact_id, created_at)
      SELECT ${t}, ${pay.rows[0].id}, 'stripe', 'e' || g, 'payment.succeeded', p.email, p.contact_id, ${at}
      FROM ${series} ${person}`);
    const first = await sql<{ lead_id: string; contact_id: string }>`
      SELECT lead_id, contact_id FROM people WHERE n = 7`.execute(trx);
    ({ lead_id: leadId, contact_id: contactId } = first.rows[0]);
  });
  await sql`ANALYZE`.execute(database.db);
}, 120_000);
afterAll(() => database.close());

describe('a timeline page', () => {
  it.each([
    ['lead', () => leadId, LEAD_ACCESSES],
    ['contact', () => contactId, CONTACT_ACCESSES],
  ] as const)(
    "of a %s is one statement that reads each source by the record's index",
    async (kind, id, expected) => {
      const statements = await statementsOf(kind, id());
      expect(statements).toHaveLength(1);
      expect(await accessesOf(statements[0])).toEqual(expected);
      // From a cursor in the middle: the same indexes, started at the cursor.
      const after: TimelinePosition = {
        at: new Date(Date.now() - 3 * 86_400_000).toISOString().replace('Z', '000Z'),
        type: 'deal',
        id: '00000000-0000-4000-8000-000000000000',
      };
      const paged = await statementsOf(kind, id(), after);
      expect(paged).toHaveLength(1);
      expect(await accessesOf(paged[0])).toEqual(expected);
    },
  );
});

it('is kept prepared on the connection: a second page of the same form is neither parsed nor planned again', async () => {
  // Both reads in one transaction: one pooled connection, whose prepared statements they share.
  const prepared = await withTenant(database.db, tenantId, async (trx) => {
    await readTimeline(trx, tenantId, 'lead', leadId, 50, undefined);
    await readTimeline(trx, tenantId, 'lead', leadId, 10, undefined);
    const { rows } = await sql<{ name: string; calls: string }>`
      SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements
       WHERE statement LIKE '%WITH rec AS%'`.execute(trx);
    return rows;
  });
  // One statement for both limits (a parameter), named by its text, run twice.
  expect(prepared).toEqual([{ name: expect.stringMatching(/^crm_[0-9a-f]{40}$/), calls: '2' }]);
});
