import {
  contactChangeSchema,
  contactInputSchema,
  dealChangeSchema,
  dealInputSchema,
  leadImportItemSchema,
  leadResultItemSchema,
  productChangeSchema,
  TIMELINE_TYPES,
  timelineQuerySchema,
} from '@crm/records';
import { cursorPageQuerySchema, pageQuerySchema } from '@crm/shared/pagination';
import {
  addOperation,
  idParam,
  cursorPaginated,
  paginated,
  record,
  type OpenAPIRegistry,
} from '@crm/shared/openapi';
import { z } from 'zod';
import { ACTIVITY_SORTABLE, activityFiltersSchema } from './activities/activity-routes.schema';
import { CONTACT_SORTABLE, contactFiltersSchema } from './contacts/contact-routes.schema';
import { listQuery } from './deals/deal-routes.schema';
import { exportRequestSchema } from './exports/exports.schema';
import { FORM_SORTABLE, SUBMISSION_SORTABLE } from './forms/forms.repository';
import { createFormSchema, listFilters, updateFormSchema } from './forms/forms.schema';
import { LEAD_SORTABLE, leadChangeSchema, leadFiltersSchema } from './leads/lead-routes.schema';
import {
  CONVERSATION_SORTABLE,
  MESSAGE_SORTABLE,
  conversationFiltersSchema,
} from './conversations/conversation-routes.schema';
import { PRODUCT_SORTABLE } from './products/product-routes.schema';
import {
  RECEIVER_RESOURCES,
  RECEIVER_SORTABLE,
  timeRangeFields,
} from './receiver-records/receiver-records.schema';

/*
 * crm-api's operations, from the schemas its routes validate with (build-time only: the
 * generator in scripts/openapi imports this; the service never does).
 */

const DEAL_ID = '3b0c9f7e-1d2a-4e5b-8c6d-7e8f9a0b1c2d';
const deal = record.openapi('Deal', {
  example: {
    id: DEAL_ID,
    title: 'Annual plan',
    value: '1200.00',
    currency: 'USD',
    stage: 'proposal',
    assigned_to: null,
    lead_id: null,
    contact_id: null,
    expected_close_date: '2026-12-31',
    custom_fields: {},
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
  },
});
const lead = record.openapi('Lead');
const form = record.openapi('Form');
const contact = record.openapi('Contact', {
  example: {
    id: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    external_id: null,
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    first_name: 'Ada',
    last_name: 'Lovelace',
    company: 'Analytical Engines',
    title: null,
    custom_fields: {},
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
  },
});
const product = record.openapi('Product', {
  example: {
    id: '7c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    sku: 'PLAN-ANNUAL',
    name: 'Annual plan',
    description: null,
    price: '1200.00',
    currency: 'USD',
    active: true,
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
  },
});
const activity = record.openapi('Activity', {
  example: {
    id: '8d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
    type: 'call',
    subject: 'Intro call',
    body: null,
    occurred_at: '2026-11-24T10:00:00.000Z',
    lead_id: null,
    contact_id: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    deal_id: null,
    custom_fields: {},
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
  },
});

const conversation = record.openapi('Conversation', {
  example: {
    id: '9e4f5a6b-7c8d-4e9f-8a1b-2c3d4e5f6a7b',
    channel: 'messaging',
    external_id: '447700900123',
    messaging_account_id: null,
    contact_name: 'Ada',
    last_message_at: '2026-11-24T10:05:00.000Z',
    created_at: '2026-11-24T10:00:00.000Z',
    subject: null,
    status: 'open',
    started_at: null,
    contact_id: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    contact_email: null,
    contact_phone: '+447700900123',
  },
});
const chatMessage = record.openapi('ChatMessage', {
  example: {
    id: 'a05f6a7b-8c9d-4eaf-9b2c-3d4e5f6a7b8c',
    conversation_id: '9e4f5a6b-7c8d-4e9f-8a1b-2c3d4e5f6a7b',
    external_id: 'wamid.HBgM',
    direction: 'inbound',
    message_type: 'text',
    body: 'Hello',
    status: null,
    sent_at: '2026-11-24T10:05:00.000Z',
    payload: {},
    created_at: '2026-11-24T10:05:01.000Z',
    updated_at: '2026-11-24T10:05:01.000Z',
  },
});

const formSubmission = record.openapi('FormSubmission', {
  example: {
    id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
    form_id: 'b0c1d2e3-f4a5-4b6c-8d7e-8f9a0b1c2d3e',
    lead_id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
    payload: { email: 'ada@example.com', first_name: 'Ada' },
    created_at: '2026-11-24T10:00:00.000Z',
  },
});

/** The receiver records' lists and details (receiver-records.schema.ts). */
function registerReceiverRecords(registry: OpenAPIRegistry): void {
  for (const resource of RECEIVER_RESOURCES) {
    const item = record.openapi(resource.noun.replace(/ (\w)/g, (_, c: string) => c.toUpperCase()));
    addOperation(registry, {
      method: 'get',
      path: resource.path,
      tag: resource.tag,
      summary: `List ${resource.summary}`,
      description:
        'Newest first by default, by `created_at` (when the row was stored); `from` ' +
        '(inclusive) and `to` (exclusive) are ISO 8601 date-times with a time zone on that ' +
        `column. Items leave out the stored provider body (${resource.detailColumns.join(', ')}); ` +
        'the detail has it.',
      auth: 'session',
      query: cursorPageQuerySchema({ sortable: RECEIVER_SORTABLE, defaultSortBy: 'created_at' })
        .extend(resource.filters.shape)
        .extend(timeRangeFields),
      success: {
        description: `A page of ${resource.summary.split(' (')[0]}`,
        bare: cursorPaginated(item),
      },
      errors: [400],
    });
    addOperation(registry, {
      method: 'get',
      path: `${resource.path}/{id}`,
      tag: resource.tag,
      summary: `One ${resource.noun.toLowerCase()}`,
      auth: 'session',
      params: idParam(),
      success: {
        description: `The ${resource.noun.toLowerCase()}, with its stored provider body`,
        data: z.object({ [resource.key]: item }),
      },
      errors: [404],
    });
  }
}
const timelineItem = z
  .object({
    type: z.enum(TIMELINE_TYPES),
    id: z.uuid().openapi({ description: "The row's id in its own source (unique per type)" }),
    occurred_at: z.string().openapi({ format: 'date-time' }),
    summary: z.string().openapi({ description: 'One line for people' }),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'A few fields of the source row; keys per type (docs/timeline.md)' }),
  })
  .openapi('TimelineItem', {
    example: {
      type: 'email_open',
      id: '2f4e6a8c-0b1d-4e3f-8a5b-7c9d1e2f3a4b',
      occurred_at: '2026-11-24T10:00:00.000Z',
      summary: 'Opened email: Welcome',
      data: { message_id: '1e3f5a7c-9b0d-4c2e-8f4a-6b8c0d2e4f6a', subject: 'Welcome' },
    },
  });
const timelinePage = z.object({
  items: z.array(timelineItem),
  nextCursor: z
    .string()
    .nullable()
    .openapi({ description: 'Pass as `cursor` for the next page; null on the last page' }),
});
const TIMELINE_DESCRIPTION =
  'Newest first: form submissions (leads only), deals, activities, sent emails and their ' +
  'opens, clicks and replies, chat messages, calls, orders and payments, each found by its ' +
  'link to the record (docs/timeline.md). Cursor-paged: `limit` (default 50, at most 200) ' +
  "and `cursor` (the previous page's `nextCursor`, unchanged). A cursor of another record, " +
  'or an altered one, is a 400 VALIDATION_ERROR.';

export function registerOperations(registry: OpenAPIRegistry): void {
  registerReceiverRecords(registry);
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/conversations',
    tag: 'Conversations',
    summary: 'List chat conversations (paginated, by channel, status, contact)',
    description:
      "Every writer's conversations in one list: the messaging receiver's and those MCP and " +
      'migrate ingest. Newest first by default (`created_at`); `last_message_at` sorts by the ' +
      'latest message, conversations without one first when descending.',
    auth: 'session',
    query: cursorPageQuerySchema({
      sortable: CONVERSATION_SORTABLE,
      defaultSortBy: 'created_at',
    }).extend(conversationFiltersSchema.shape),
    success: { description: 'A page of conversations', bare: cursorPaginated(conversation) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/conversations/{id}',
    tag: 'Conversations',
    summary: 'One chat conversation',
    auth: 'session',
    params: idParam(),
    success: { description: 'The conversation', data: z.object({ conversation }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/conversations/{id}/messages',
    tag: 'Conversations',
    summary: "A conversation's messages (paginated)",
    description:
      'By `sent_at`. The default `sortOrder=desc` makes page 1 the latest messages; within ' +
      'every page the messages read oldest first, as in a chat; `nextCursor` leads on to the ' +
      'older messages. `sortOrder=asc` pages from the first message. A cursor of another ' +
      'conversation is a 400; an unknown conversation is a 404.',
    auth: 'session',
    params: idParam(),
    query: cursorPageQuerySchema({ sortable: MESSAGE_SORTABLE, defaultSortBy: 'sent_at' }),
    success: { description: 'A page of messages', bare: cursorPaginated(chatMessage) },
    errors: [400, 404],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/v1/import/leads',
    tag: 'Leads',
    summary: 'Import leads (up to the configured row limit per request)',
    description:
      'Rows are checked one by one: a bad row is reported in `errors` and does not stop the ' +
      'others. Existing emails are updated. Answers the legacy shape ' +
      '`{ success, imported, failed, errors, data }`.',
    auth: 'session',
    body: {
      schema: z.object({ leads: z.array(leadImportItemSchema).min(1) }),
      example: {
        leads: [
          { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', source: 'import' },
        ],
      },
    },
    success: {
      description: 'Processed; per-row outcomes in imported / failed / errors',
      bare: z.object({
        success: z.literal(true),
        imported: z.number().int(),
        failed: z.number().int(),
        errors: z.array(
          z.object({ index: z.number().int(), error: z.string() }).catchall(z.unknown()),
        ),
        data: z.array(leadResultItemSchema),
      }),
      example: {
        success: true,
        imported: 1,
        failed: 0,
        errors: [],
        data: [
          {
            id: '9d3e8c1a-5b7f-4a2e-b6c4-1f0e2d3c4b5a',
            email: 'ada@example.com',
            status: 'new',
            source: 'import',
          },
        ],
      },
    },
    errors: [400, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/leads',
    tag: 'Leads',
    summary: 'List leads (paginated by page or cursor, filtered)',
    auth: 'session',
    query: cursorPageQuerySchema({ sortable: LEAD_SORTABLE, defaultSortBy: 'created_at' }).extend(
      leadFiltersSchema.shape,
    ),
    success: { description: 'A page of leads', bare: cursorPaginated(lead) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/crm/leads',
    tag: 'Leads',
    summary: 'Create one lead',
    description:
      'The rules and error texts of one import item; a second lead with the same email in the ' +
      'tenant is a 409 ALREADY_EXISTS. Writes lead.created. Viewers may not.',
    auth: 'session',
    body: {
      schema: leadImportItemSchema,
      example: { email: 'ada@example.com', first_name: 'Ada', status: 'new', company: 'Acme' },
    },
    success: { status: 201, description: 'Lead created', data: z.object({ lead }) },
    errors: [400, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/leads/{id}',
    tag: 'Leads',
    summary: 'Change a lead',
    description:
      'The keys given replace the stored values (custom_fields merge key by key); a new email ' +
      'another lead of the tenant has is a 409 ALREADY_EXISTS. Writes lead.updated.',
    auth: 'session',
    params: idParam(),
    body: { schema: leadChangeSchema, example: { status: 'qualified', phone: '+1 555 0100' } },
    success: { description: 'Lead updated', data: z.object({ lead }) },
    errors: [400, 404, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/crm/leads/{id}',
    tag: 'Leads',
    summary: 'Delete a lead',
    description: 'Writes lead.deleted; deals and activities keep their rows, without the lead.',
    auth: 'session',
    params: idParam(),
    success: { description: 'Lead deleted', data: z.object({ id: z.uuid() }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/leads/{id}',
    tag: 'Leads',
    summary: 'One lead',
    auth: 'session',
    params: idParam(),
    success: { description: 'The lead', data: z.object({ lead }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/leads/{id}/timeline',
    tag: 'Leads',
    summary: "A lead's timeline (cursor-paged, newest first)",
    description: TIMELINE_DESCRIPTION,
    auth: 'session',
    params: idParam(),
    query: timelineQuerySchema,
    success: { description: 'A page of the timeline', bare: timelinePage },
    errors: [400, 404],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/crm/deals',
    tag: 'Deals',
    summary: 'List deals (newest first; limit and cursor)',
    description:
      'Answers the legacy shape `{ deals: [...] }` (specified for this older route) and ' +
      '`nextCursor`: pass it as `cursor` (with the same `stage` and `assigned_to`) for the deals ' +
      'after these; null when there are no more. No page number and no count. A cursor sent ' +
      'with other filters, altered, or of another tenant or list is a 400 VALIDATION_ERROR.',
    auth: 'session',
    query: listQuery,
    success: {
      description: 'The deals',
      bare: z.object({
        deals: z.array(deal),
        nextCursor: z
          .string()
          .nullable()
          .meta({ description: 'Pass as cursor for the deals after these; null when no more' }),
      }),
    },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/crm/deals',
    tag: 'Deals',
    summary: 'Create a deal',
    auth: 'session',
    body: {
      schema: dealInputSchema,
      example: { title: 'Annual plan', value: '1200.00', currency: 'USD', stage: 'proposal' },
    },
    success: { status: 201, description: 'Deal created', data: z.object({ deal }) },
    errors: [400, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/deals/{id}',
    tag: 'Deals',
    summary: 'One deal',
    auth: 'session',
    params: idParam(),
    success: { description: 'The deal', data: z.object({ deal }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/deals/{id}',
    tag: 'Deals',
    summary: 'Change a deal',
    auth: 'session',
    params: idParam(),
    body: { schema: dealChangeSchema, example: { stage: 'won' } },
    success: { description: 'Deal updated', data: z.object({ deal }) },
    errors: [400, 404, 413, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/crm/deals/{id}',
    tag: 'Deals',
    summary: 'Delete a deal',
    auth: 'session',
    params: idParam(),
    success: { description: 'Deal deleted', data: z.object({ id: z.uuid() }) },
    errors: [404],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/crm/contacts',
    tag: 'Contacts',
    summary: 'List contacts (paginated by page or cursor; q is an email or its start)',
    description:
      '`q` matches contacts whose email starts with it (case-insensitive; `%` and `_` are ' +
      'literal); names are not searched. Contacts without an email (or last name) come last ' +
      'sorted by it ascending, first descending. Past 10,000 contacts, follow `nextCursor`.',
    auth: 'session',
    query: cursorPageQuerySchema({
      sortable: CONTACT_SORTABLE,
      defaultSortBy: 'created_at',
    }).extend(contactFiltersSchema.shape),
    success: { description: 'A page of contacts', bare: cursorPaginated(contact) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/crm/contacts',
    tag: 'Contacts',
    summary: 'Create a contact',
    description:
      'Email and/or phone required. Email and external_id are unique per tenant: a taken one ' +
      'is a 409 ALREADY_EXISTS naming it.',
    auth: 'session',
    body: {
      schema: contactInputSchema,
      example: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
    },
    success: { status: 201, description: 'Contact created', data: z.object({ contact }) },
    errors: [400, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/contacts/{id}',
    tag: 'Contacts',
    summary: 'One contact',
    auth: 'session',
    params: idParam(),
    success: { description: 'The contact', data: z.object({ contact }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/contacts/{id}/timeline',
    tag: 'Contacts',
    summary: "A contact's timeline (cursor-paged, newest first)",
    description: TIMELINE_DESCRIPTION,
    auth: 'session',
    params: idParam(),
    query: timelineQuerySchema,
    success: { description: 'A page of the timeline', bare: timelinePage },
    errors: [400, 404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/contacts/{id}',
    tag: 'Contacts',
    summary: 'Change a contact',
    description:
      'A field given replaces the stored one (null clears it), one left out keeps it; ' +
      'custom_fields merge key by key. A contact keeps an email or a phone.',
    auth: 'session',
    params: idParam(),
    body: { schema: contactChangeSchema, example: { company: 'Analytical Engines' } },
    success: { description: 'Contact updated', data: z.object({ contact }) },
    errors: [400, 404, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/crm/contacts/{id}',
    tag: 'Contacts',
    summary: 'Delete a contact',
    auth: 'session',
    params: idParam(),
    success: { description: 'Contact deleted', data: z.object({ id: z.uuid() }) },
    errors: [404],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/crm/products',
    tag: 'Products',
    summary: 'List products (paginated by page or cursor)',
    auth: 'session',
    query: cursorPageQuerySchema({ sortable: PRODUCT_SORTABLE, defaultSortBy: 'created_at' }),
    success: { description: 'A page of products', bare: cursorPaginated(product) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/products/{id}',
    tag: 'Products',
    summary: 'One product',
    auth: 'session',
    params: idParam(),
    success: { description: 'The product', data: z.object({ product }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/products/{id}',
    tag: 'Products',
    summary: 'Change a product',
    description: 'Name, description, price, currency, active; the sku is the key and stays.',
    auth: 'session',
    params: idParam(),
    body: { schema: productChangeSchema, example: { price: '19.90', currency: 'EUR' } },
    success: { description: 'Product updated', data: z.object({ product }) },
    errors: [400, 404, 413, 415],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/crm/activities',
    tag: 'Activities',
    summary: 'List activities (paginated, by lead, contact or deal)',
    auth: 'session',
    query: cursorPageQuerySchema({
      sortable: ACTIVITY_SORTABLE,
      defaultSortBy: 'occurred_at',
    }).extend(activityFiltersSchema.shape),
    success: { description: 'A page of activities', bare: cursorPaginated(activity) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/activities/{id}',
    tag: 'Activities',
    summary: 'One activity',
    auth: 'session',
    params: idParam(),
    success: { description: 'The activity', data: z.object({ activity }) },
    errors: [404],
  });

  addOperation(registry, {
    method: 'post',
    path: '/api/exports',
    tag: 'Exports',
    summary: 'Export a resource as a file (streamed)',
    description: 'Viewers may call it: it only reads.',
    auth: 'session',
    body: { schema: exportRequestSchema, example: { resource: 'leads', format: 'csv' } },
    success: {
      description: 'The file, streamed as an attachment',
      contentType: 'application/octet-stream',
      bare: z.string().openapi({ format: 'binary' }),
    },
    errors: [400, 413, 415, 503],
  });

  addOperation(registry, {
    method: 'post',
    path: '/api/crm/forms',
    tag: 'Forms',
    summary: 'Create a web form',
    auth: 'session',
    body: {
      schema: createFormSchema,
      example: {
        name: 'Contact us',
        slug: 'contact-us',
        fields: [{ name: 'email', label: 'Email', type: 'email', required: true }],
      },
    },
    success: { status: 201, description: 'Form created', data: z.object({ form }) },
    errors: [400, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/forms',
    tag: 'Forms',
    summary: 'List web forms',
    auth: 'session',
    query: cursorPageQuerySchema({ sortable: FORM_SORTABLE, defaultSortBy: 'created_at' }).extend(
      listFilters.shape,
    ),
    // The route answers the page itself, not inside the success envelope (docs/api.md).
    success: { description: 'A page of forms', bare: cursorPaginated(form) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/forms/{id}',
    tag: 'Forms',
    summary: 'One web form',
    auth: 'session',
    params: idParam(),
    success: { description: 'The form', data: z.object({ form }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/forms/{id}',
    tag: 'Forms',
    summary: 'Change a web form',
    auth: 'session',
    params: idParam(),
    body: { schema: updateFormSchema, example: { enabled: false } },
    success: { description: 'Form updated', data: z.object({ form }) },
    errors: [400, 404, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/forms/{id}/submissions',
    tag: 'Forms',
    summary: "A web form's submissions (paginated)",
    description:
      'Newest first by default: every value submitted (without the honeypot) and the lead it ' +
      'was filed under. An unknown form is a 404.',
    auth: 'session',
    params: idParam(),
    query: pageQuerySchema({ sortable: SUBMISSION_SORTABLE, defaultSortBy: 'created_at' }),
    success: { description: 'A page of submissions', bare: paginated(formSubmission) },
    errors: [400, 404],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/public/forms/{tenantSlug}/{formSlug}/submit',
    tag: 'Forms',
    summary: 'Submit a web form (public, from any origin)',
    description:
      'JSON or urlencoded. Creates the lead of a new email; on an existing lead fills only ' +
      'empty fields, never replacing stored values. Answers with the submission id only, the ' +
      'same whether or not the email was already a lead.',
    auth: 'public',
    params: z.object({ tenantSlug: z.string(), formSlug: z.string() }),
    body: {
      schema: z.record(z.string(), z.unknown()),
      example: { email: 'ada@example.com', name: 'Ada' },
    },
    success: {
      status: 201,
      description: 'Form submitted',
      data: z.object({ submission_id: z.uuid() }),
    },
    errors: [400, 404, 413, 415],
  });
}
