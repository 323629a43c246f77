import { DEAL_STAGES, LEAD_STATUSES, type Trx } from '@crm/shared/db';
import { AppError } from '@crm/shared/http';
import type { McpScope } from '@crm/shared/mcp-access';
import {
  CONVERSATION_STATUSES,
  TIMELINE_TYPES,
  channelSchema,
  findContact,
  findConversation,
  findDeal,
  findLead,
  findProduct,
  listContacts,
  listConversations,
  listDeals,
  listLeads,
  listMessages,
  listProducts,
  timelinePage,
  type TimelineRecordKind,
  type TimelineType,
} from '@crm/records';
import { z } from 'zod';

/** Most rows one read returns; the next ones are behind `next_cursor`. */
export const MAX_READ_LIMIT = 50;
const DEFAULT_READ_LIMIT = 20;
/** Timeline items get_record returns with a lead or contact. */
export const RECORD_TIMELINE_LIMIT = 20;
/** Messages get_record returns with a conversation. */
export const RECORD_MESSAGES_LIMIT = 20;

/**
 * Timeline items whose records another read scope guards: a lead's or contact's timeline
 * leaves them out for a caller without that scope (a chat message's body is messaging's, a
 * deal is deals').
 */
export const TIMELINE_TYPE_SCOPES: Partial<Record<TimelineType, McpScope>> = {
  chat_message: 'mcp:read:messaging',
  deal: 'mcp:read:deals',
};

/**
 * What a read runs with: one transaction of the caller's tenant, the cursors' key, and the
 * caller's scopes (for what a record brings along).
 */
export interface ReadContext {
  trx: Trx;
  tenantId: string;
  cursorSecret: string;
  scopes: readonly string[];
}

/** The timeline types `scopes` read; undefined when every one. */
function timelineTypesFor(scopes: readonly string[]): TimelineType[] | undefined {
  const types = TIMELINE_TYPES.filter((type) => {
    const needed = TIMELINE_TYPE_SCOPES[type];
    return !needed || scopes.includes(needed);
  });
  return types.length === TIMELINE_TYPES.length ? undefined : types;
}

export interface ReadTool {
  name: string;
  title: string;
  description: string;
  /** The scopes any of which lists the tool. */
  listedUnder: readonly McpScope[];
  /**
   * The scope a call with these arguments needs; undefined when the arguments do not say (the
   * tool then refuses them as invalid, naming what is valid).
   */
  scopeFor(args: unknown): McpScope | undefined;
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  /** The structured answer (JSON values only: it is validated against outputSchema). */
  run(ctx: ReadContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Rows as JSON has them (dates as ISO 8601 text): what structuredContent carries. */
const asJson = <T>(value: T): unknown => JSON.parse(JSON.stringify(value)) as unknown;

const limit = z
  .number({ error: `limit must be a whole number from 1 to ${MAX_READ_LIMIT}` })
  .int({ error: `limit must be a whole number from 1 to ${MAX_READ_LIMIT}` })
  .min(1, { error: `limit must be a whole number from 1 to ${MAX_READ_LIMIT}` })
  .max(MAX_READ_LIMIT, { error: `limit must be a whole number from 1 to ${MAX_READ_LIMIT}` })
  .default(DEFAULT_READ_LIMIT)
  .describe(`Rows to return, 1 to ${MAX_READ_LIMIT} (default ${DEFAULT_READ_LIMIT})`);
const cursor = z
  .string({ error: 'cursor must be the next_cursor of the previous answer, as a string' })
  .min(1, { error: 'cursor must be the next_cursor of the previous answer, not empty' })
  .max(1000, { error: 'cursor must be the next_cursor of the previous answer; this is too long' })
  .optional()
  .describe(
    'The next_cursor of the previous answer, to read the rows after it (repeat the other arguments unchanged)',
  );
const query = (max: number) =>
  z
    .string({ error: `q must be a string of at most ${max} characters` })
    .trim()
    .max(max, { error: `q must be a string of at most ${max} characters` })
    .optional();

const listOutput = (item: z.ZodObject) =>
  z.object({
    items: z.array(item).describe('The rows, in list order'),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as cursor (with the same other arguments) for the next rows; null: no more'),
    total: z
      .number()
      .int()
      .optional()
      .describe('Matching rows (a lower bound when total_exact is false)'),
    total_exact: z.boolean().optional(),
  });

const when = z.string().describe('ISO 8601 date-time');
const leadItem = z.looseObject({
  id: z.string(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  status: z.string(),
  source: z.string().nullable(),
  created_at: when,
});
const contactItem = z.looseObject({
  id: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  company: z.string().nullable(),
  created_at: when,
});
const productItem = z.looseObject({
  id: z.string(),
  sku: z.string(),
  name: z.string().nullable(),
  price: z.string().nullable(),
  currency: z.string().nullable(),
  active: z.boolean(),
  created_at: when,
});
const dealItem = z.looseObject({
  id: z.string(),
  title: z.string(),
  stage: z.string(),
  value: z.string().nullable(),
  currency: z.string().nullable(),
  lead_id: z.string().nullable(),
  contact_id: z.string().nullable(),
  created_at: when,
});
const conversationItem = z.looseObject({
  id: z.string(),
  channel: z.string(),
  external_id: z.string(),
  contact_name: z.string().nullable(),
  subject: z.string().nullable(),
  status: z.string().nullable(),
  contact_id: z.string().nullable(),
  contact_email: z.string().nullable(),
  contact_phone: z.string().nullable(),
  started_at: when.nullable(),
  last_message_at: when.nullable(),
  created_at: when,
});

/** A CursorPage (or a deal slice) as the tools answer it. */
function pageOutput(page: {
  items: unknown[];
  nextCursor: string | null;
  total?: number;
  totalExact?: boolean;
}) {
  return {
    items: asJson(page.items),
    next_cursor: page.nextCursor,
    ...(page.total !== undefined && { total: page.total, total_exact: page.totalExact }),
  };
}

/** The newest first, by the list's own keyset (its cursors are signed for the tenant). */
const newestFirst = (args: { limit: number; cursor?: string }) => ({
  page: 1,
  pageSize: args.limit,
  sortBy: 'created_at' as const,
  sortOrder: 'desc' as const,
  cursor: args.cursor,
});

const searchLeadsInput = z.object({
  q: query(200).describe('Text in the name, email, phone or company (any case)'),
  status: z
    .enum(LEAD_STATUSES, { error: `status must be one of: ${LEAD_STATUSES.join(', ')}` })
    .optional()
    .describe(`Only leads with this status: ${LEAD_STATUSES.join(', ')}`),
  limit,
  cursor,
});
const searchContactsInput = z.object({
  q: query(320).describe('Text in the name, email, phone or company (any case)'),
  limit,
  cursor,
});
const searchProductsInput = z.object({
  q: query(200).describe('Text in the name or sku (any case)'),
  active: z
    .boolean({ error: 'active must be true or false' })
    .optional()
    .describe('Only active (true) or inactive (false) products'),
  limit,
  cursor,
});
const listDealsInput = z.object({
  stage: z
    .enum(DEAL_STAGES, { error: `stage must be one of: ${DEAL_STAGES.join(', ')}` })
    .optional()
    .describe(`Only deals in this stage: ${DEAL_STAGES.join(', ')}`),
  limit,
  cursor,
});

const searchConversationsInput = z.object({
  channel: channelSchema
    .optional()
    .describe('Only conversations on this channel (chat, messaging, …)'),
  status: z
    .enum(CONVERSATION_STATUSES, {
      error: `status must be one of: ${CONVERSATION_STATUSES.join(', ')}`,
    })
    .optional()
    .describe(`Only conversations with this status: ${CONVERSATION_STATUSES.join(', ')}`),
  contact_id: z
    .uuid({
      error: 'contact_id must be the id of a contact (a UUID), as search_contacts returns it',
    })
    .optional()
    .describe('Only conversations linked to this contact'),
  limit,
  cursor,
});

/** The record types get_record reads, each under its read scope. */
export const RECORD_SCOPES = {
  lead: 'mcp:read:leads',
  contact: 'mcp:read:contacts',
  product: 'mcp:read:products',
  deal: 'mcp:read:deals',
  conversation: 'mcp:read:messaging',
} as const satisfies Record<string, McpScope>;
export type RecordType = keyof typeof RECORD_SCOPES;
const RECORD_TYPES = Object.keys(RECORD_SCOPES) as [RecordType, ...RecordType[]];

const getRecordInput = z.object({
  type: z
    .enum(RECORD_TYPES, { error: `type must be one of: ${RECORD_TYPES.join(', ')}` })
    .describe(
      `The record's type: ${RECORD_TYPES.map((t) => `${t} (${RECORD_SCOPES[t]})`).join(', ')}`,
    ),
  id: z
    .uuid({ error: 'id must be the id of a record (a UUID), as the search tools return it' })
    .describe("The record's id"),
  timeline_cursor: z
    .string({ error: 'timeline_cursor must be the timeline.next_cursor of a previous answer' })
    .min(1, { error: 'timeline_cursor must be the timeline.next_cursor of a previous answer' })
    .max(300, { error: 'timeline_cursor must be the timeline.next_cursor of a previous answer' })
    .optional()
    .describe(
      "A lead or contact only: the timeline.next_cursor of a previous answer for this record, to read the timeline's next page",
    ),
  messages_cursor: z
    .string({ error: 'messages_cursor must be the messages.next_cursor of a previous answer' })
    .min(1, { error: 'messages_cursor must be the messages.next_cursor of a previous answer' })
    .max(1000, { error: 'messages_cursor must be the messages.next_cursor of a previous answer' })
    .optional()
    .describe(
      'A conversation only: the messages.next_cursor of a previous answer for this conversation, to read its next (later) messages',
    ),
});

const messagesOutput = z.object({
  items: z
    .array(
      z.looseObject({
        id: z.string(),
        external_id: z.string(),
        direction: z.string().describe('inbound or outbound'),
        message_type: z.string().nullable(),
        body: z.string().nullable(),
        status: z.string().nullable(),
        sent_at: when.nullable(),
        created_at: when,
      }),
    )
    .describe('Oldest first'),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as messages_cursor (same type and id) for the later messages; null: no more'),
});

const timelineOutput = z.object({
  items: z
    .array(
      z.looseObject({
        type: z.string().describe('activity, call, chat_message, deal, email_*, order, …'),
        id: z.string(),
        occurred_at: when,
        summary: z.string(),
        data: z.record(z.string(), z.unknown()),
      }),
    )
    .describe('Newest first'),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as timeline_cursor (same type and id) for the next page; null: no more'),
});

const getRecordOutput = z.object({
  type: z.enum(RECORD_TYPES),
  record: z.looseObject({ id: z.string() }).describe("The record's fields"),
  timeline: timelineOutput
    .optional()
    .describe(`A lead or contact: a page of its timeline (${RECORD_TIMELINE_LIMIT} items)`),
  messages: messagesOutput
    .optional()
    .describe(`A conversation: a page of its messages (${RECORD_MESSAGES_LIMIT} items)`),
});

/** Thrown by a read for an answer that is the caller's doing, shown as the tool error. */
export class ReadRefusal extends Error {}

const FINDERS = {
  lead: findLead,
  contact: findContact,
  product: findProduct,
  deal: findDeal,
  conversation: findConversation,
} satisfies Record<RecordType, (trx: Trx, tenantId: string, id: string) => Promise<unknown>>;

const TENANT_ONLY = "Reads only the caller's own tenant.";

/**
 * A list tool: one read scope, newest first by the list's own keyset, answered as a page
 * (`pageOutput`). `read` gets the parsed arguments.
 */
function listTool<I extends z.ZodObject>(tool: {
  name: string;
  title: string;
  description: string;
  /** Said after the paging: how the rows' values read. */
  valuesNote?: string;
  scope: McpScope;
  input: I;
  item: z.ZodObject;
  read: (ctx: ReadContext, args: z.output<I>) => Promise<Parameters<typeof pageOutput>[0]>;
}): ReadTool {
  return {
    name: tool.name,
    title: tool.title,
    description: [
      `${tool.description}; ${MAX_READ_LIMIT} at most per call, the rest behind next_cursor.`,
      tool.valuesNote,
      TENANT_ONLY,
    ]
      .filter(Boolean)
      .join(' '),
    listedUnder: [tool.scope],
    scopeFor: () => tool.scope,
    inputSchema: tool.input,
    outputSchema: listOutput(tool.item),
    run: async (ctx, raw) => pageOutput(await tool.read(ctx, raw as z.output<I>)),
  };
}

/**
 * A page read's refusal of the cursor it was handed (a 4xx: edited, foreign, another record's)
 * as the tool error `message`; anything else is thrown on.
 */
function cursorRefused(message: string) {
  return (err: unknown): never => {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    throw new ReadRefusal(message);
  };
}

/**
 * A page of a lead's or contact's timeline, newest first, without the item types the caller's
 * scopes do not read (left out by the statement, so the page is still full and its cursor right).
 */
async function timelineOf(
  { trx, tenantId, scopes }: ReadContext,
  kind: TimelineRecordKind,
  id: string,
  cursor: string | undefined,
) {
  const page = await timelinePage(
    trx,
    tenantId,
    kind,
    id,
    RECORD_TIMELINE_LIMIT,
    cursor,
    timelineTypesFor(scopes),
  ).catch(
    cursorRefused(
      `timeline_cursor was refused: it is not a timeline.next_cursor of this ${kind}'s answers. Pass one unchanged, or leave timeline_cursor out for the newest items.`,
    ),
  );
  return page && { items: asJson(page.items), next_cursor: page.nextCursor };
}

/**
 * A page of a conversation's messages, oldest first (the conversation list's REST route reads
 * the same rows), after `cursor`. Without the raw payload the channel sent: the body and
 * its fields say what an agent needs, and a payload may be large.
 */
async function messagesOf(
  { trx, tenantId, cursorSecret }: ReadContext,
  conversationId: string,
  cursor: string | undefined,
) {
  const page = await listMessages(
    trx,
    tenantId,
    conversationId,
    {
      page: 1,
      pageSize: RECORD_MESSAGES_LIMIT,
      sortBy: 'sent_at',
      sortOrder: 'asc',
      cursor,
    },
    { secret: cursorSecret },
  ).catch(
    cursorRefused(
      "messages_cursor was refused: it is not a messages.next_cursor of this conversation's answers. Pass one unchanged, or leave messages_cursor out for the first messages.",
    ),
  );
  return {
    items: asJson(page.items.map(({ payload: _payload, ...message }) => message)),
    next_cursor: page.nextCursor,
  };
}

export const READ_TOOLS: readonly ReadTool[] = [
  listTool({
    name: 'search_leads',
    title: 'Search leads',
    description:
      'Lists leads, newest first, optionally only those whose name, email, phone or company contains q and/or with a status',
    scope: 'mcp:read:leads',
    input: searchLeadsInput,
    item: leadItem,
    read: ({ trx, tenantId, cursorSecret }, args) =>
      listLeads(
        trx,
        tenantId,
        newestFirst(args),
        { q: args.q || undefined, status: args.status },
        { secret: cursorSecret },
      ),
  }),
  listTool({
    name: 'search_contacts',
    title: 'Search contacts',
    description:
      'Lists contacts, newest first, optionally only those whose name, email, phone or company contains q',
    scope: 'mcp:read:contacts',
    input: searchContactsInput,
    item: contactItem,
    read: ({ trx, tenantId, cursorSecret }, args) => {
      const q = args.q ? args.q.toLowerCase() : undefined;
      return listContacts(trx, tenantId, newestFirst(args), q ? { q } : {}, {
        secret: cursorSecret,
      });
    },
  }),
  listTool({
    name: 'search_products',
    title: 'Search products',
    description:
      'Lists products, newest first, optionally only those whose name or sku contains q and/or active or not',
    valuesNote: 'Prices are decimal strings.',
    scope: 'mcp:read:products',
    input: searchProductsInput,
    item: productItem,
    read: ({ trx, tenantId, cursorSecret }, args) =>
      listProducts(
        trx,
        tenantId,
        newestFirst(args),
        { q: args.q || undefined, active: args.active },
        { secret: cursorSecret },
      ),
  }),
  listTool({
    name: 'list_deals',
    title: 'List deals',
    description: 'Lists deals, newest first, optionally only those in one stage',
    valuesNote: 'Values are decimal strings.',
    scope: 'mcp:read:deals',
    input: listDealsInput,
    item: dealItem,
    read: ({ trx, tenantId, cursorSecret }, args) =>
      listDeals(
        trx,
        tenantId,
        { stage: args.stage, limit: args.limit, cursor: args.cursor },
        { secret: cursorSecret },
      ),
  }),
  listTool({
    name: 'search_conversations',
    title: 'Search conversations',
    description:
      'Lists chat conversations (every channel), newest first, optionally only those on one channel, with a status and/or linked to one contact',
    valuesNote: 'get_record (type conversation) reads one with its messages.',
    scope: 'mcp:read:messaging',
    input: searchConversationsInput,
    item: conversationItem,
    read: ({ trx, tenantId, cursorSecret }, args) =>
      listConversations(
        trx,
        tenantId,
        newestFirst(args),
        { channel: args.channel, status: args.status, contact_id: args.contact_id },
        { secret: cursorSecret },
      ),
  }),
  {
    name: 'get_record',
    title: 'Get a record',
    description: `Reads one record by type and id: ${RECORD_TYPES.join(', ')}, each needing its read scope. A lead or contact comes with the newest ${RECORD_TIMELINE_LIMIT} items of its timeline (activities, emails, calls, orders, payments, form submissions; chat messages only with mcp:read:messaging, deals only with mcp:read:deals) and the cursor to the next ones (timeline_cursor). A conversation comes with its first ${RECORD_MESSAGES_LIMIT} messages, oldest first, and the cursor to the later ones (messages_cursor). ${TENANT_ONLY}`,
    listedUnder: Object.values(RECORD_SCOPES),
    scopeFor: (args) => {
      const type = (args as { type?: unknown } | null)?.type;
      return typeof type === 'string' && type in RECORD_SCOPES
        ? RECORD_SCOPES[type as RecordType]
        : undefined;
    },
    inputSchema: getRecordInput,
    outputSchema: getRecordOutput,
    run: async (ctx, raw) => {
      const args = raw as z.output<typeof getRecordInput>;
      if (args.timeline_cursor && args.type !== 'lead' && args.type !== 'contact') {
        throw new ReadRefusal(
          `timeline_cursor is for a lead or contact only; a ${args.type} has no timeline here. Leave it out.`,
        );
      }
      if (args.messages_cursor && args.type !== 'conversation') {
        throw new ReadRefusal(
          `messages_cursor is for a conversation only; a ${args.type} has no messages here. Leave it out.`,
        );
      }
      const record = await FINDERS[args.type](ctx.trx, ctx.tenantId, args.id);
      if (!record) throw new ReadRefusal(`No ${args.type} with id ${args.id} in this tenant.`);
      if (args.type === 'conversation') {
        return {
          type: args.type,
          record: asJson(record),
          messages: await messagesOf(ctx, args.id, args.messages_cursor),
        };
      }
      if (args.type !== 'lead' && args.type !== 'contact') {
        return { type: args.type, record: asJson(record) };
      }
      const timeline = await timelineOf(ctx, args.type, args.id, args.timeline_cursor);
      return { type: args.type, record: asJson(record), ...(timeline && { timeline }) };
    },
  },
];
