import { NETWORK_ACTIVITY_KINDS, type Database } from '@crm/shared/db';
import { uuid } from '@crm/shared/http';
import { z } from 'zod';

/**
 * The records the receivers store, read through crm-api (docs/receiver-records.md): one entry
 * per list, naming its table, what a list item and a detail carry, and its filters. Every list
 * is sorted by `created_at` (when the row was stored, which every row has; the provider's own
 * time may be missing), on its (tenant_id, created_at, id) index (migration 0022).
 */
export const RECEIVER_SORTABLE = ['created_at'] as const;

// The time range of every list filtered by time: one rule, in the shared pagination library.
export { timeRangeFields, timeRangeSchema, type TimeRange } from '@crm/shared/pagination';

const text = (name: string, max: number) =>
  z
    .string({ message: `${name} must be text` })
    .min(1, { message: `${name} must not be empty` })
    .max(max, { message: `${name} must be at most ${max} characters` });

export type ReceiverTable = keyof Pick<
  Database,
  | 'commerce_orders'
  | 'payment_events'
  | 'call_logs'
  | 'email_opens'
  | 'email_clicks'
  | 'email_replies'
  | 'network_events'
>;

export interface ReceiverResource {
  /** The list route; its detail is `${path}/:id`. */
  path: string;
  table: ReceiverTable;
  /** The detail's key in `data`, and the name in a 404. */
  key: string;
  noun: string;
  /** Columns of a list item; a detail adds `detailColumns` (the provider's stored body). */
  listColumns: readonly string[];
  detailColumns: readonly string[];
  /** Filters, each an equality on its column (or, for email events, on their email message). */
  filters: z.ZodObject<Record<string, z.ZodOptional<z.ZodType<string>>>>;
  /** Filters matched on the email message the row belongs to, not on the row. */
  messageFilters?: readonly string[];
  tag: string;
  summary: string;
}

const EMAIL_COLUMNS = ['id', 'message_id', 'user_agent', 'ip_address', 'occurred_at', 'created_at'];
const emailFilters = z.object({
  message_id: uuid('message_id').optional(),
  lead_id: uuid('lead_id').optional(),
  contact_id: uuid('contact_id').optional(),
});

export const RECEIVER_RESOURCES: readonly ReceiverResource[] = [
  {
    path: '/api/crm/orders',
    table: 'commerce_orders',
    key: 'order',
    noun: 'Order',
    listColumns: [
      'id',
      'connection_id',
      'external_order_id',
      'order_number',
      'email',
      'contact_id',
      'total',
      'currency',
      'status',
      'created_at',
      'updated_at',
    ],
    detailColumns: ['payload'],
    filters: z.object({
      contact_id: uuid('contact_id').optional(),
      connection_id: uuid('connection_id').optional(),
      status: text('status', 100).optional(),
    }),
    tag: 'Orders',
    summary: 'storefront orders (by contact, connection, status, time)',
  },
  {
    path: '/api/crm/payments',
    table: 'payment_events',
    key: 'payment',
    noun: 'Payment',
    listColumns: [
      'id',
      'connection_id',
      'provider',
      'external_event_id',
      'provider_object_id',
      'kind',
      'amount',
      'currency',
      'email',
      'contact_id',
      'created_at',
    ],
    detailColumns: ['payload'],
    filters: z.object({
      contact_id: uuid('contact_id').optional(),
      connection_id: uuid('connection_id').optional(),
      kind: z
        .enum(['payment.succeeded', 'payment.failed', 'payment.refunded'], {
          message: 'kind must be one of: payment.succeeded, payment.failed, payment.refunded',
        })
        .optional(),
    }),
    tag: 'Payments',
    summary: 'payment events (by contact, connection, kind, time)',
  },
  {
    path: '/api/crm/calls',
    table: 'call_logs',
    key: 'call',
    noun: 'Call',
    listColumns: [
      'id',
      'number_id',
      'call_id',
      'direction',
      'from_number',
      'to_number',
      'status',
      'duration_seconds',
      'created_at',
      'updated_at',
    ],
    detailColumns: ['payload'],
    filters: z.object({
      number_id: uuid('number_id').optional(),
      status: text('status', 100).optional(),
    }),
    tag: 'Calls',
    summary: 'call logs (by telephony number, status, time)',
  },
  {
    path: '/api/crm/email-events/opens',
    table: 'email_opens',
    key: 'open',
    noun: 'Email open',
    listColumns: EMAIL_COLUMNS,
    detailColumns: ['metadata'],
    filters: emailFilters,
    messageFilters: ['lead_id', 'contact_id'],
    tag: 'Email events',
    summary: 'email opens (by email message, its lead or contact, time)',
  },
  {
    path: '/api/crm/email-events/clicks',
    table: 'email_clicks',
    key: 'click',
    noun: 'Email click',
    listColumns: [...EMAIL_COLUMNS, 'target_url'],
    detailColumns: ['metadata'],
    filters: emailFilters,
    messageFilters: ['lead_id', 'contact_id'],
    tag: 'Email events',
    summary: 'email link clicks (by email message, its lead or contact, time)',
  },
  {
    path: '/api/crm/email-events/replies',
    table: 'email_replies',
    key: 'reply',
    noun: 'Email reply',
    listColumns: [...EMAIL_COLUMNS, 'from_email', 'snippet'],
    detailColumns: ['metadata'],
    filters: emailFilters,
    messageFilters: ['lead_id', 'contact_id'],
    tag: 'Email events',
    summary: 'email replies (by email message, its lead or contact, time)',
  },
  {
    path: '/api/crm/network-events',
    table: 'network_events',
    key: 'network_event',
    noun: 'Network event',
    listColumns: [
      'id',
      'account_id',
      'external_event_id',
      'kind',
      'event_type',
      'actor',
      'occurred_at',
      'created_at',
    ],
    detailColumns: ['payload'],
    filters: z.object({
      account_id: uuid('account_id').optional(),
      kind: z
        .enum(NETWORK_ACTIVITY_KINDS, {
          message: `kind must be one of: ${NETWORK_ACTIVITY_KINDS.join(', ')}`,
        })
        .optional(),
    }),
    tag: 'Network events',
    summary: 'professional network events (by account, kind, time)',
  },
];

/** A record id in a path; anything else is answered as an unknown record. */
export const receiverRecordIdSchema = z.uuid();
