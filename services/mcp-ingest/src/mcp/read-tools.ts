import { DEAL_STAGES, LEAD_STATUSES, type Trx } from '@crm/shared/db';
import { AppError } from '@crm/shared/http';
import type { McpScope } from '@crm/shared/mcp-access';
import {
  findContact,
  findConversation,
  findDeal,
  findLead,
  findProduct,
  listContacts,
  listDeals,
  listLeads,
  listProducts,
  timelinePage,
  type TimelineRecordKind,
} from '@crm/records';
import { z } from 'zod';

/** Most rows one read returns; the next ones are behind `next_cursor`. */
export const MAX_READ_LIMIT = 50;
const DEFAULT_READ_LIMIT = 20;
/** Timeline items get_record returns with a lead or contact. */
export const RECORD_TIMELINE_LIMIT = 20;

/** What a read runs with: one transaction of the caller's tenant, and the cursors' key. */
export interface ReadContext {
  trx: Trx;
  tenantId: string;
  cursorSecret: string;
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
  {
    name: 'get_record',
    title: 'Get a record',
    description: `Reads one record by type and id: ${RECORD_TYPES.join(', ')}, each needing its read scope. A lead or contact comes with the newest ${RECORD_TIMELINE_LIMIT} items of its timeline (activities, deals, emails, chat messages, calls, orders, payments, form submissions) and the cursor to the next ones (timeline_cursor). ${TENANT_ONLY}`,
    listedUnder: Object.values(RECORD_SCOPES),
    scopeFor: (args) => {
      const type = (args as { type?: unknown } | null)?.type;
      return typeof type === 'string' && type in RECORD_SCOPES
        ? RECORD_SCOPES[type as RecordType]
        : undefined;
    },
    inputSchema: getRecordInput,
    outputSchema: getRecordOutput,
    run: async ({ trx, tenantId }, raw) => {
      const args = raw as z.output<typeof getRecordInput>;
      if (args.timeline_cursor && args.type !== 'lead' && args.type !== 'contact') {
        throw new ReadRefusal(
          `timeline_cursor is for a lead or contact only; a ${args.type} has no timeline here. Leave it out.`,
        );
      }
      const record = await FINDERS[args.type](trx, tenantId, args.id);
      if (!record) throw new ReadRefusal(`No ${args.type} with id ${args.id} in this tenant.`);
      if (args.type !== 'lead' && args.type !== 'contact') {
        return { type: args.type, record: asJson(record) };
      }
      const kind: TimelineRecordKind = args.type;
      const timeline = await timelinePage(
        trx,
        tenantId,
        kind,
        args.id,
        RECORD_TIMELINE_LIMIT,
        args.timeline_cursor,
      ).catch((err: unknown) => {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        throw new ReadRefusal(
          `timeline_cursor was refused: it is not a timeline.next_cursor of this ${kind}'s answers. Pass one unchanged, or leave timeline_cursor out for the newest items.`,
        );
      });
      return {
        type: args.type,
        record: asJson(record),
        ...(timeline && {
          timeline: { items: asJson(timeline.items), next_cursor: timeline.nextCursor },
        }),
      };
    },
  },
];
