import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEAL_STAGES, type Db } from '@crm/shared/db';
import {
  insertRow,
  sessionClient,
  tenantSession,
  testDb,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { service } from '../src/main';

/**
 * The read tools through the real gateway with the SDK client: listed per read scope, reading
 * only the caller's tenant, paging by the lists' own signed cursors, get_record with a lead's
 * timeline (without the items of scopes the key lacks) and a conversation with its messages,
 * refusals as tool errors that say what is valid. The keys hold read scopes only.
 */
const stack = useServiceBehindGateway(service);
let db: Db;

type Session = Awaited<ReturnType<typeof tenantSession>>;
let owner: Session;
let stranger: Session;
const clients: Client[] = [];

interface ToolAnswer {
  structuredContent?: Record<string, unknown> & {
    items?: Array<Record<string, unknown>>;
    next_cursor?: string | null;
  };
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
}

async function createKey(session: Session, scopes: string[]): Promise<string> {
  const res = await sessionClient(stack.url, session.cookie).post('/api/mcp/keys', {
    name: 'reader',
    scopes,
  });
  expect(res.status).toBe(201);
  return res.body.data.api_key as string;
}

async function connect(session: Session, scopes: string[]): Promise<Client> {
  const client = new Client({ name: 'reader', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${await createKey(session, scopes)}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type ToolItems = Array<Record<string, unknown>>;

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

const ALL_READ = [
  'mcp:read:leads',
  'mcp:read:contacts',
  'mcp:read:products',
  'mcp:read:messaging',
  'mcp:read:deals',
];
let reader: Client;
const ids: Record<string, string> = {};

beforeAll(async () => {
  db = testDb();
  owner = await tenantSession(stack, db, 'owner');
  stranger = await tenantSession(stack, db, 'owner');
  // The rows, written by the ingest tools (and deals and activities directly).
  const writer = await connect(owner, [
    'mcp:ingest:leads',
    'mcp:ingest:contacts',
    'mcp:ingest:products',
    'mcp:ingest:messaging',
  ]);
  const leads = await call(writer, 'ingest_leads', {
    records: [
      { email: 'ann@acme.test', first_name: 'Ann', status: 'new' },
      { email: 'bob@acme.test', first_name: 'Bob', status: 'qualified' },
      { email: 'cy@other.test', first_name: 'Cy', status: 'new' },
    ],
  });
  [ids.ann, ids.bob, ids.cy] = leads.structuredContent?.ids as string[];
  const contacts = await call(writer, 'ingest_contacts', {
    records: [
      { email: 'dora@acme.test', first_name: 'Dora' },
      { email: 'eve@else.test', first_name: 'Eve' },
    ],
  });
  [ids.dora, ids.eve] = contacts.structuredContent?.ids as string[];
  const products = await call(writer, 'ingest_products', {
    records: [
      { sku: 'ACME-1', name: 'Anvil', price: '19.90', currency: 'EUR' },
      { sku: 'ACME-2', name: 'Rocket', price: '99.00', currency: 'EUR', active: false },
    ],
  });
  [ids.anvil, ids.rocket] = products.structuredContent?.ids as string[];
  const conversations = await call(writer, 'ingest_chat_conversations', {
    records: [
      { external_id: 'chat-1', contact_email: 'dora@acme.test', subject: 'Hello', status: 'open' },
      { external_id: 'chat-2', channel: 'sms', subject: 'Bye', status: 'closed' },
    ],
  });
  [ids.conversation, ids.smsConversation] = conversations.structuredContent?.ids as string[];
  // Dora's conversation: 22 messages, one a minute apart, given newest first.
  const messages = await call(writer, 'ingest_chat_messages', {
    records: Array.from({ length: 22 }, (_, n) => 21 - n).map((i) => ({
      conversation_external_id: 'chat-1',
      external_id: `msg-${i}`,
      direction: i % 2 === 0 ? 'inbound' : 'outbound',
      body: `Message ${i}`,
      sender: 'dora',
      sent_at: new Date(Date.UTC(2026, 0, 2, 10, i)).toISOString(),
    })),
  });
  expect(messages.structuredContent?.imported).toBe(22);
  ids.deal = (
    await insertRow(db, 'crm_deals', {
      tenant_id: owner.tenantId,
      title: 'Anvils for Ann',
      value: '1200.00',
      stage: DEAL_STAGES[1],
      lead_id: ids.ann,
    })
  ).id;
  // Ann's timeline: the deal and 22 notes, one a minute apart: two pages of 20.
  for (let i = 0; i < 22; i++) {
    await insertRow(db, 'crm_activities', {
      tenant_id: owner.tenantId,
      type: 'note',
      subject: `Note ${i}`,
      lead_id: ids.ann,
      occurred_at: new Date(Date.UTC(2026, 0, 1, 9, i)).toISOString(),
    });
  }
  // The other tenant's rows, which match every search below.
  const theirs = await connect(stranger, [
    'mcp:ingest:leads',
    'mcp:ingest:products',
    'mcp:ingest:messaging',
  ]);
  const strangerLeads = await call(theirs, 'ingest_leads', {
    records: [{ email: 'ann@acme-rival.test', first_name: 'Ann', status: 'new' }],
  });
  [ids.strangerLead] = strangerLeads.structuredContent?.ids as string[];
  await call(theirs, 'ingest_products', { records: [{ sku: 'ACME-9', name: 'Anvil copy' }] });
  const strangerConversations = await call(theirs, 'ingest_chat_conversations', {
    records: [{ external_id: 'chat-1', subject: 'Their secret', status: 'open' }],
  });
  [ids.strangerConversation] = strangerConversations.structuredContent?.ids as string[];
  await call(theirs, 'ingest_chat_messages', {
    records: [{ conversation_external_id: 'chat-1', external_id: 'their-1', body: 'Theirs' }],
  });
  ids.strangerDeal = (
    await insertRow(db, 'crm_deals', {
      tenant_id: stranger.tenantId,
      title: 'Not yours',
      value: '1.00',
      stage: DEAL_STAGES[1],
    })
  ).id;
  reader = await connect(owner, ALL_READ);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await db.close();
});

describe('tools/list', () => {
  it('lists the read tools of the key scopes, read-only, with output schemas', async () => {
    const leadsOnly = await connect(owner, ['mcp:read:leads']);
    const { tools } = await leadsOnly.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_record', 'search_leads']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
    }
    expect(tools.find((t) => t.name === 'search_leads')?.inputSchema).toMatchObject({
      properties: { q: {}, status: {}, limit: { maximum: 50 }, cursor: {} },
    });
    const dealsOnly = await connect(owner, ['mcp:read:deals']);
    expect((await dealsOnly.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'get_record',
      'list_deals',
    ]);
    const messagingOnly = await connect(owner, ['mcp:read:messaging']);
    const messagingTools = (await messagingOnly.listTools()).tools;
    expect(messagingTools.map((t) => t.name).sort()).toEqual([
      'get_record',
      'search_conversations',
    ]);
    const conversationsTool = messagingTools.find((t) => t.name === 'search_conversations');
    expect(conversationsTool?.annotations).toMatchObject({ readOnlyHint: true });
    expect(conversationsTool?.inputSchema).toMatchObject({
      properties: { channel: {}, status: {}, contact_id: {}, limit: { maximum: 50 }, cursor: {} },
    });
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'get_record',
      'list_deals',
      'search_contacts',
      'search_conversations',
      'search_leads',
      'search_products',
    ]);
  });
});

describe('the list tools', () => {
  it("search_leads: the tenant's leads only, filtered, paged by cursor, with a text form", async () => {
    const all = await call(reader, 'search_leads', {});
    expect(all.isError).toBeFalsy();
    const emails = (all.structuredContent?.items ?? []).map((l) => l.email).sort();
    expect(emails).toEqual(['ann@acme.test', 'bob@acme.test', 'cy@other.test']);
    expect(JSON.parse(all.content[0].text)).toEqual(all.structuredContent);

    const acme = await call(reader, 'search_leads', { q: 'ACME' });
    expect((acme.structuredContent?.items ?? []).map((l) => l.email).sort()).toEqual([
      'ann@acme.test',
      'bob@acme.test',
    ]);
    const qualified = await call(reader, 'search_leads', { status: 'qualified' });
    expect((qualified.structuredContent?.items ?? []).map((l) => l.id)).toEqual([ids.bob]);

    const first = await call(reader, 'search_leads', { limit: 2 });
    expect(first.structuredContent?.items).toHaveLength(2);
    expect(first.structuredContent?.next_cursor).toEqual(expect.any(String));
    const second = await call(reader, 'search_leads', {
      limit: 2,
      cursor: first.structuredContent?.next_cursor,
    });
    expect(second.structuredContent?.items).toHaveLength(1);
    expect(second.structuredContent?.next_cursor).toBeNull();
    const paged = [
      ...(first.structuredContent?.items ?? []),
      ...(second.structuredContent?.items ?? []),
    ];
    expect(paged.map((l) => l.id).sort()).toEqual([ids.ann, ids.bob, ids.cy].sort());
    expect(JSON.stringify([all, acme, first, second])).not.toContain(ids.strangerLead);
  });

  it('search_contacts, search_products and list_deals answer the tenant rows, filtered', async () => {
    const contacts = await call(reader, 'search_contacts', { q: 'acme' });
    expect((contacts.structuredContent?.items ?? []).map((c) => c.id)).toEqual([ids.dora]);
    const pagedContacts = await call(reader, 'search_contacts', { limit: 1 });
    const nextContacts = await call(reader, 'search_contacts', {
      limit: 1,
      cursor: pagedContacts.structuredContent?.next_cursor,
    });
    expect(
      [pagedContacts, nextContacts]
        .flatMap((a) => (a.structuredContent?.items ?? []).map((c) => c.id))
        .sort(),
    ).toEqual([ids.dora, ids.eve].sort());

    const products = await call(reader, 'search_products', { q: 'acme' });
    expect((products.structuredContent?.items ?? []).map((p) => p.sku).sort()).toEqual([
      'ACME-1',
      'ACME-2',
    ]);
    const inactive = await call(reader, 'search_products', { active: false });
    expect(inactive.structuredContent?.items).toEqual([
      expect.objectContaining({ id: ids.rocket, price: '99.00', active: false }),
    ]);
    const byName = await call(reader, 'search_products', { q: 'anvil', active: true });
    expect((byName.structuredContent?.items ?? []).map((p) => p.id)).toEqual([ids.anvil]);

    const deals = await call(reader, 'list_deals', {});
    expect(deals.structuredContent).toEqual({
      items: [expect.objectContaining({ id: ids.deal, value: '1200.00', lead_id: ids.ann })],
      next_cursor: null,
    });
    const otherStage = await call(reader, 'list_deals', { stage: DEAL_STAGES[2] });
    expect(otherStage.structuredContent?.items).toEqual([]);
    expect(JSON.stringify([products, byName, deals])).not.toMatch(/ACME-9|Not yours/);
  });
});

describe('search_conversations', () => {
  it("the tenant's conversations only, filtered like the REST list, paged by cursor", async () => {
    const all = await call(reader, 'search_conversations', {});
    expect(all.isError).toBeFalsy();
    expect(JSON.parse(all.content[0].text)).toEqual(all.structuredContent);
    expect((all.structuredContent?.items ?? []).map((c) => c.id).sort()).toEqual(
      [ids.conversation, ids.smsConversation].sort(),
    );
    expect(all.structuredContent?.items).toContainEqual(
      expect.objectContaining({
        id: ids.conversation,
        channel: 'chat',
        external_id: 'chat-1',
        subject: 'Hello',
        status: 'open',
        contact_id: ids.dora,
      }),
    );
    const filtered: Array<[Record<string, unknown>, string[]]> = [
      [{ channel: 'sms' }, [ids.smsConversation]],
      [{ status: 'closed' }, [ids.smsConversation]],
      [{ contact_id: ids.dora }, [ids.conversation]],
      [{ channel: 'chat', status: 'closed' }, []],
    ];
    for (const [args, expected] of filtered) {
      const answer = await call(reader, 'search_conversations', args);
      expect((answer.structuredContent?.items ?? []).map((c) => c.id)).toEqual(expected);
    }
    const first = await call(reader, 'search_conversations', { limit: 1 });
    expect(first.structuredContent?.items).toHaveLength(1);
    const second = await call(reader, 'search_conversations', {
      limit: 1,
      cursor: first.structuredContent?.next_cursor,
    });
    expect(second.structuredContent?.next_cursor).toBeNull();
    expect(
      [first, second].flatMap((a) => (a.structuredContent?.items ?? []).map((c) => c.id)).sort(),
    ).toEqual([ids.conversation, ids.smsConversation].sort());
    // The other tenant's conversation has the same external id: never shown.
    expect(JSON.stringify([all, first, second])).not.toMatch(
      new RegExp(`Their secret|${ids.strangerConversation}`),
    );
  });
});

describe('get_record', () => {
  it('a lead with the first page of its timeline, and the next page by timeline_cursor', async () => {
    const first = await call(reader, 'get_record', { type: 'lead', id: ids.ann });
    expect(first.isError).toBeFalsy();
    const content = first.structuredContent as {
      type: string;
      record: Record<string, unknown>;
      timeline: { items: Array<{ id: string; type: string }>; next_cursor: string | null };
    };
    expect(content.type).toBe('lead');
    expect(content.record).toMatchObject({ id: ids.ann, email: 'ann@acme.test' });
    expect(content.timeline.items).toHaveLength(20);
    expect(content.timeline.next_cursor).toEqual(expect.any(String));
    const second = await call(reader, 'get_record', {
      type: 'lead',
      id: ids.ann,
      timeline_cursor: content.timeline.next_cursor,
    });
    const rest = (second.structuredContent as typeof content).timeline;
    expect(rest.next_cursor).toBeNull();
    const items = [...content.timeline.items, ...rest.items];
    expect(items).toHaveLength(23);
    expect(new Set(items.map((i) => i.id)).size).toBe(23);
    expect(items.filter((i) => i.type === 'deal').map((i) => i.id)).toEqual([ids.deal]);
  });

  it('a contact (with its timeline), a product, a deal and a conversation', async () => {
    const contact = await call(reader, 'get_record', { type: 'contact', id: ids.dora });
    expect(contact.structuredContent).toMatchObject({
      type: 'contact',
      record: { id: ids.dora, email: 'dora@acme.test' },
      timeline: { next_cursor: expect.any(String) },
    });
    // Her conversation's messages, newest first.
    const doraItems = (contact.structuredContent as { timeline: { items: ToolItems } }).timeline
      .items;
    expect(doraItems.map((i) => i.type)).toEqual(Array(20).fill('chat_message'));
    expect(doraItems[0]).toMatchObject({ data: { body: 'Message 21' } });
    const product = await call(reader, 'get_record', { type: 'product', id: ids.anvil });
    expect(product.structuredContent).toMatchObject({
      type: 'product',
      record: { sku: 'ACME-1', price: '19.90' },
    });
    expect(product.structuredContent).not.toHaveProperty('timeline');
    const deal = await call(reader, 'get_record', { type: 'deal', id: ids.deal });
    expect(deal.structuredContent).toMatchObject({ record: { title: 'Anvils for Ann' } });
    const conversation = await call(reader, 'get_record', {
      type: 'conversation',
      id: ids.conversation,
    });
    expect(conversation.structuredContent).toMatchObject({
      type: 'conversation',
      record: { id: ids.conversation, external_id: 'chat-1', subject: 'Hello' },
    });
  });

  it('a conversation with its first messages, oldest first, and the later ones by messages_cursor', async () => {
    type Messages = { items: ToolItems; next_cursor: string | null };
    const first = await call(reader, 'get_record', { type: 'conversation', id: ids.conversation });
    expect(first.isError).toBeFalsy();
    const page = (first.structuredContent as { messages: Messages }).messages;
    expect(page.items.map((m) => m.body)).toEqual(
      Array.from({ length: 20 }, (_, i) => `Message ${i}`),
    );
    expect(page.items[0]).toMatchObject({
      external_id: 'msg-0',
      direction: 'inbound',
      sent_at: '2026-01-02T10:00:00.000Z',
    });
    // The raw payload the sender sent stays out of the answer.
    expect(page.items[0]).not.toHaveProperty('payload');
    expect(page.next_cursor).toEqual(expect.any(String));
    const second = await call(reader, 'get_record', {
      type: 'conversation',
      id: ids.conversation,
      messages_cursor: page.next_cursor,
    });
    const rest = (second.structuredContent as { messages: Messages }).messages;
    expect(rest).toEqual({
      items: [
        expect.objectContaining({ body: 'Message 20' }),
        expect.objectContaining({ body: 'Message 21' }),
      ],
      next_cursor: null,
    });
    // A conversation without messages: an empty page.
    const sms = await call(reader, 'get_record', { type: 'conversation', id: ids.smsConversation });
    expect(sms.structuredContent).toMatchObject({ messages: { items: [], next_cursor: null } });
    // Another tenant's conversation is unknown, its messages never shown.
    const theirs = await call(reader, 'get_record', {
      type: 'conversation',
      id: ids.strangerConversation,
    });
    expect(theirs.isError).toBe(true);
    expect(theirs.content[0].text).toContain(`No conversation with id ${ids.strangerConversation}`);
    expect(JSON.stringify([first, second, theirs])).not.toMatch(/Their secret|Theirs/);
    // A cursor of another conversation, or none of a conversation's, is refused.
    for (const [id, messagesCursor] of [
      [ids.smsConversation, page.next_cursor],
      [ids.conversation, 'nonsense'],
    ]) {
      const refused = await call(reader, 'get_record', {
        type: 'conversation',
        id,
        messages_cursor: messagesCursor,
      });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toContain('messages_cursor was refused');
    }
  });

  it('a timeline leaves out the chat messages and deals of scopes the key lacks, pages still full', async () => {
    type Timeline = { items: ToolItems; next_cursor: string | null };
    const timelineOf = async (client: Client, args: Record<string, unknown>) =>
      ((await call(client, 'get_record', args)).structuredContent as { timeline: Timeline })
        .timeline;
    // Ann: 22 notes and a deal; without mcp:read:deals, 22 notes in pages of 20 and 2.
    const leadsOnly = await connect(owner, ['mcp:read:leads']);
    const first = await timelineOf(leadsOnly, { type: 'lead', id: ids.ann });
    expect(first.items).toHaveLength(20);
    const rest = await timelineOf(leadsOnly, {
      type: 'lead',
      id: ids.ann,
      timeline_cursor: first.next_cursor,
    });
    expect(rest.next_cursor).toBeNull();
    const items = [...first.items, ...rest.items];
    expect(items.map((i) => i.type)).toEqual(Array(22).fill('activity'));
    expect(JSON.stringify(items)).not.toContain('Anvils for Ann');
    // Dora: only chat messages; without mcp:read:messaging, none (and no body).
    const contactsOnly = await connect(owner, ['mcp:read:contacts', 'mcp:read:deals']);
    expect(await timelineOf(contactsOnly, { type: 'contact', id: ids.dora })).toEqual({
      items: [],
      next_cursor: null,
    });
    const withMessaging = await connect(owner, ['mcp:read:contacts', 'mcp:read:messaging']);
    const dora = await timelineOf(withMessaging, { type: 'contact', id: ids.dora });
    expect(dora.items.map((i) => i.type)).toEqual(Array(20).fill('chat_message'));
  });

  it("another tenant's record is not found, as an unknown id", async () => {
    for (const [type, id] of [
      ['lead', ids.strangerLead],
      ['deal', ids.strangerDeal],
      ['lead', '0b6f1a2c-3d4e-4f50-8a9b-1c2d3e4f5a6b'],
    ]) {
      const answer = await call(reader, 'get_record', { type, id });
      expect(answer.isError).toBe(true);
      expect(answer.content[0].text).toContain(`No ${type} with id ${id}`);
      expect(JSON.stringify(answer)).not.toMatch(/acme-rival|Not yours/);
    }
  });
});

describe('refusals are tool errors that say what is valid', () => {
  it('a read outside the key scopes names the scope', async () => {
    const leadsOnly = await connect(owner, ['mcp:read:leads']);
    const deal = await call(leadsOnly, 'get_record', { type: 'deal', id: ids.deal });
    expect(deal.isError).toBe(true);
    expect(deal.content[0].text).toContain('mcp:read:deals');
    expect(JSON.stringify(deal)).not.toContain('Anvils for Ann');
    const products = await call(leadsOnly, 'search_products', {});
    expect(products.isError).toBe(true);
    expect(products.content[0].text).toContain('mcp:read:products');
    for (const [name, args] of [
      ['search_conversations', {}],
      ['get_record', { type: 'conversation', id: ids.conversation }],
    ] as const) {
      const refused = await call(leadsOnly, name, args);
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toContain('mcp:read:messaging');
      expect(JSON.stringify(refused)).not.toMatch(/Hello|Message \d/);
    }
    const ingest = await call(leadsOnly, 'ingest_leads', { records: [{ email: 'x@y.test' }] });
    expect(ingest.isError).toBe(true);
    expect(ingest.content[0].text).toContain('mcp:ingest:leads');
  });

  it('a bad, edited or foreign cursor', async () => {
    const first = await call(reader, 'search_leads', { limit: 1 });
    const cursor = first.structuredContent?.next_cursor as string;
    for (const [name, args] of [
      ['search_leads', { cursor: 'nonsense' }],
      ['search_leads', { cursor: `${cursor}x` }],
      // Another list's cursor, and the same list's under other filters.
      ['search_contacts', { cursor }],
      ['search_leads', { limit: 1, status: 'new', cursor }],
    ] as const) {
      const answer = await call(reader, name, args);
      expect(answer.isError).toBe(true);
      expect(answer.content[0].text).toContain(`${name}: the cursor was refused`);
      expect(answer.content[0].text).toContain('Pass the next_cursor of the previous answer');
    }
    const timeline = await call(reader, 'get_record', {
      type: 'lead',
      id: ids.bob,
      timeline_cursor: 'nonsense',
    });
    expect(timeline.isError).toBe(true);
    expect(timeline.content[0].text).toContain('timeline_cursor was refused');
    // Ann's own cursor is not Bob's.
    const ann = await call(reader, 'get_record', { type: 'lead', id: ids.ann });
    const annCursor = (ann.structuredContent as { timeline: { next_cursor: string } }).timeline
      .next_cursor;
    const crossed = await call(reader, 'get_record', {
      type: 'lead',
      id: ids.bob,
      timeline_cursor: annCursor,
    });
    expect(crossed.isError).toBe(true);
    expect(crossed.content[0].text).toContain('timeline_cursor was refused');
  });

  it('bad arguments name the valid values', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['search_leads', { limit: 51 }, 'limit must be a whole number from 1 to 50'],
      ['search_leads', { status: 'won' }, 'status must be one of: new, contacted'],
      ['list_deals', { stage: 'nowhere' }, `stage must be one of: ${DEAL_STAGES.join(', ')}`],
      ['search_products', { active: 'yes' }, 'active must be true or false'],
      ['get_record', { type: 'invoice', id: ids.ann }, 'type must be one of: lead, contact'],
      ['get_record', { type: 'lead', id: 'ann' }, 'id must be the id of a record (a UUID)'],
      [
        'get_record',
        { type: 'product', id: ids.anvil, timeline_cursor: 'x' },
        'timeline_cursor is for a lead or contact only',
      ],
      [
        'get_record',
        { type: 'lead', id: ids.ann, messages_cursor: 'x' },
        'messages_cursor is for a conversation only',
      ],
      ['search_conversations', { status: 'done' }, 'status must be one of: open, pending, closed'],
      ['search_conversations', { channel: 'SMS!' }, 'channel must be a lower-case name'],
      ['search_conversations', { contact_id: 'dora' }, 'contact_id must be the id of a contact'],
    ];
    for (const [name, args, expected] of cases) {
      const answer = await call(reader, name, args);
      expect(answer.isError).toBe(true);
      expect(answer.content[0].text).toContain(expected);
    }
  });
});
