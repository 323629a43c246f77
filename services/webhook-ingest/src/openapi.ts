import { PAYMENT_PROVIDERS } from '@crm/shared/db';
import {
  addOperation,
  idParam,
  cursorPaginated,
  paginated,
  record,
  type OpenAPIRegistry,
} from '@crm/shared/openapi';
import { cursorPageQuerySchema, pageQuerySchema, timeRangeFields } from '@crm/shared/pagination';
import { z, type ZodType } from 'zod';
import { SORTABLE as inboundEventSorts } from './integrations/inbound-events.repository';
import { filtersSchema as inboundEventFilters } from './integrations/inbound-events.schema';
import { SORTABLE as messagingAccountSorts } from './integrations/messaging-accounts.repository';
import { createSchema as messagingAccount } from './integrations/messaging-accounts.schema';
import { SORTABLE as networkAccountSorts } from './integrations/network-accounts.repository';
import { createSchema as networkAccount } from './integrations/network-accounts.schema';
import { SORTABLE as paymentConnectionSorts } from './integrations/payment-connections.repository';
import {
  createSchema as paymentConnection,
  filtersSchema as paymentFilters,
  updateSchema as paymentChange,
} from './integrations/payment-connections.schema';
import {
  createSchema as storefrontConnection,
  filtersSchema as storefrontFilters,
  updateSchema as storefrontChange,
} from './integrations/storefront-connections.schema';
import { SORTABLE as storefrontConnectionSorts } from './integrations/storefront-connections.repository';
import { SORTABLE as telephonyNumberSorts } from './integrations/telephony-numbers.repository';
import { createSchema as telephonyNumber } from './integrations/telephony-numbers.schema';
import { challengeQuerySchema, networkDeliverySchema } from './providers/network/network.schema';

/*
 * webhook-ingest's operations: the integration admin views (Session) and the inbound provider
 * receivers (each verifies its provider's signature on the raw body). Build-time only.
 */

interface Resource {
  path: string;
  name: string;
  /** The list's sorts (its repository's), the first the default. */
  sortable: readonly [string, ...string[]];
  /** Whether the list also pages by cursor (a CursorPage). */
  cursor?: boolean;
  create?: { schema: ZodType; example: unknown };
  change?: { schema: ZodType; example: unknown };
  filters?: z.ZodObject;
  hasGetOne?: boolean;
}

const RESOURCES: Resource[] = [
  {
    path: '/api/integrations/network-accounts',
    sortable: networkAccountSorts,
    name: 'network account',
    create: {
      schema: networkAccount,
      example: { external_account_id: 'acct_123', name: 'Main page' },
    },
  },
  {
    path: '/api/integrations/messaging-accounts',
    sortable: messagingAccountSorts,
    name: 'messaging account',
    create: {
      schema: messagingAccount,
      example: { phone_number_id: '1234567890', display_phone_number: '+1 415 555 0100' },
    },
  },
  {
    path: '/api/integrations/telephony-numbers',
    sortable: telephonyNumberSorts,
    name: 'telephony number',
    create: {
      schema: telephonyNumber,
      example: { phone_number: '+14155550100', name: 'Sales line' },
    },
  },
  {
    path: '/api/integrations/storefront-connections',
    sortable: storefrontConnectionSorts,
    name: 'storefront connection',
    create: {
      schema: storefrontConnection,
      example: {
        platform: 'storefront_a',
        shop_identifier: 'acme',
        name: 'Acme store',
        webhookSecret: 'a-long-shared-secret',
      },
    },
    change: { schema: storefrontChange, example: { name: 'Acme outlet' } },
    filters: storefrontFilters,
  },
  {
    path: '/api/integrations/payment-connections',
    sortable: paymentConnectionSorts,
    name: 'payment connection',
    create: {
      schema: paymentConnection,
      example: {
        provider: 'stripe',
        name: 'Stripe live',
        webhookSecret: 'whsec_a-long-shared-secret',
      },
    },
    change: { schema: paymentChange, example: { webhookSecret: 'whsec_rotated-secret' } },
    filters: paymentFilters,
  },
  {
    path: '/api/integrations/inbound-events',
    name: 'inbound event',
    sortable: inboundEventSorts,
    cursor: true,
    // `from` (inclusive) and `to` (exclusive) on received_at.
    filters: inboundEventFilters.extend(timeRangeFields),
  },
];

const TAG = 'Integrations';
const RECEIVERS = 'Inbound webhooks';

const received = z.record(z.string(), z.unknown());
const receivedExample = { received: true };

function signature(provider: string, header: string, description: string) {
  return { provider, header, description };
}

export function registerOperations(registry: OpenAPIRegistry): void {
  for (const resource of RESOURCES) {
    const item = record;
    const deletable = resource.create !== undefined;
    addOperation(registry, {
      method: 'get',
      path: resource.path,
      tag: TAG,
      summary: `List ${resource.name}s`,
      auth: 'session',
      query: (resource.cursor ? cursorPageQuerySchema : pageQuerySchema)({
        sortable: resource.sortable,
        defaultSortBy: resource.sortable[0],
      }).extend(resource.filters?.shape ?? {}),
      // The page itself, not inside the success envelope: what the route answers (docs/api.md).
      success: {
        description: `A page of ${resource.name}s`,
        bare: (resource.cursor ? cursorPaginated : paginated)(item),
      },
      errors: [400],
    });
    addOperation(registry, {
      method: 'get',
      path: `${resource.path}/{id}`,
      tag: TAG,
      summary: `One ${resource.name}`,
      auth: 'session',
      params: idParam(),
      success: { description: `The ${resource.name}`, data: item },
      errors: [404],
    });
    if (resource.create) {
      addOperation(registry, {
        method: 'post',
        path: resource.path,
        tag: TAG,
        summary: `Add a ${resource.name} (owners, admins)`,
        description: 'A secret is stored sealed and never returned.',
        auth: 'session',
        body: resource.create,
        success: { status: 201, description: 'Created', data: item },
        errors: [400, 409, 413, 415],
      });
    }
    if (resource.change) {
      addOperation(registry, {
        method: 'patch',
        path: `${resource.path}/{id}`,
        tag: TAG,
        summary: `Change a ${resource.name} (owners, admins)`,
        auth: 'session',
        params: idParam(),
        body: resource.change,
        success: { description: 'Changed', data: item },
        errors: [400, 404, 409, 413, 415],
      });
    }
    if (deletable) {
      addOperation(registry, {
        method: 'delete',
        path: `${resource.path}/{id}`,
        tag: TAG,
        summary: `Remove a ${resource.name} (owners, admins)`,
        auth: 'session',
        params: idParam(),
        success: { description: 'Removed', data: z.object({ id: z.uuid() }) },
        errors: [404],
      });
    }
  }

  addOperation(registry, {
    method: 'post',
    path: '/api/integrations/inbound-events/{id}/reprocess',
    tag: TAG,
    summary: 'Re-process a failed delivery (owners, admins)',
    description:
      "Runs a delivery that failed after its signature was verified through its receiver again, from the stored raw payload, claiming the same ledger row as the provider retry would: a delivery already processed (or re-processed meanwhile) writes nothing again (`reprocessed: false`). Offered for every receiver's deliveries. A storefront or payment delivery is re-processed for the connection it came through; a billing, email, network, messaging or telephony delivery (shared secret, routed by content) is routed again by its content with today's owners and writes only when that routes it to this tenant alone; it proves no identifier claim. 409 that writes nothing for a delivery that was not verified (accepted unverified or with verification skipped), of a provider no receiver handles, whose connection was deleted, whose payload retention dropped (after `RETENTION_LEDGER_PAYLOADS_DAYS`), or whose content no longer routes to this tenant (the identifier released or now another tenant's, told apart by nothing). Another tenant's id is a 404.",
    auth: 'session',
    params: idParam(),
    success: {
      description: 'The ledger row after the attempt (its outcome says how it went)',
      data: z.object({ event: record, reprocessed: z.boolean() }),
    },
    errors: [404, 409],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/integrations/receivers',
    tag: TAG,
    summary: 'Receiver URLs to register, per provider kind',
    description:
      'Each kind: the full receiver URL built from PUBLIC_BASE_URL, which secret signs its deliveries (never its value) and the headers the provider sends.',
    auth: 'session',
    success: {
      description: 'The receivers',
      data: z.object({
        receivers: z.array(
          z.object({
            kind: z.string(),
            name: z.string(),
            url: z.string(),
            secret: z.string(),
            headers: z.array(z.object({ name: z.string(), carries: z.string() })),
            platformSecretSet: z.boolean().nullable(),
          }),
        ),
      }),
    },
  });

  const rawJson = {
    schema: z.record(z.string(), z.unknown()),
    description: "The provider's event, verified on its raw bytes",
  };
  const receiver = (
    path: string,
    summary: string,
    auth: { provider: string; header: string; description: string }[],
    example: unknown,
    extra: Partial<Parameters<typeof addOperation>[1]> = {},
  ) =>
    addOperation(registry, {
      method: 'post',
      path,
      tag: RECEIVERS,
      summary,
      auth: { signatures: auth },
      body: { ...rawJson, example },
      success: {
        description: 'Acknowledged (a redelivery is acknowledged and changes nothing)',
        bare: received,
        example: receivedExample,
      },
      errors: [400, 413],
      ...extra,
    });

  addOperation(registry, {
    method: 'get',
    path: '/api/webhooks/billing',
    tag: RECEIVERS,
    summary: 'Billing receiver probe',
    auth: 'public',
    success: {
      description: 'Ready',
      bare: z.object({ status: z.literal('ok') }),
      example: { status: 'ok' },
    },
  });
  receiver(
    '/api/webhooks/billing',
    'Billing events (subscription changes)',
    [
      signature(
        'billing',
        'billing-signature',
        '`t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` with BILLING_WEBHOOK_SECRET (Stripe scheme)',
      ),
    ],
    { id: 'evt_1', type: 'customer.subscription.updated', data: { object: {} } },
    { errors: [400, 413, 503] },
  );
  receiver(
    '/api/webhooks/email',
    'Email provider events (opens, clicks, replies, bounces)',
    [
      signature(
        'email',
        'webhook-signature',
        'Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` (v1,<base64 HMAC-SHA256>)',
      ),
    ],
    { type: 'email.opened', data: { email_id: 'msg_1' } },
  );
  addOperation(registry, {
    method: 'get',
    path: '/api/webhooks/network',
    tag: RECEIVERS,
    summary: 'Network receiver probe, or the challenge echoed back as text/plain',
    auth: 'public',
    query: challengeQuerySchema,
    success: {
      description: '`{ ok, status }`, or the challenge as text/plain',
      bare: z.object({ ok: z.boolean(), status: z.string() }),
      example: { ok: true, status: 'ready' },
    },
    errors: [400],
  });
  const networkExample = {
    events: [{ id: 'ev_1', type: 'POST_REACTION', account_id: 'acct_123' }],
  };
  receiver(
    '/api/webhooks/network',
    'Network activity events (batch)',
    [
      signature(
        'network',
        'x-network-signature',
        '`t=<unix_seconds>,v1=<hex HMAC-SHA256 of "t.body">` with the account\'s secret',
      ),
    ],
    networkExample,
    // Its body has a schema: what classifyBatch accepts (network.schema.ts).
    { body: { ...rawJson, schema: networkDeliverySchema, example: networkExample } },
  );
  addOperation(registry, {
    method: 'get',
    path: '/api/messaging/webhooks/cloud-api',
    tag: RECEIVERS,
    summary: 'Messaging subscription handshake: echoes hub.challenge when hub.verify_token matches',
    auth: 'public',
    query: z.object({
      'hub.mode': z.string().optional(),
      'hub.verify_token': z.string().optional(),
      'hub.challenge': z.string().optional(),
    }),
    success: {
      description: 'The challenge, as text/plain',
      contentType: 'text/plain',
      bare: z.string(),
      example: '1158201444',
    },
    errors: [400, 403],
  });
  receiver(
    '/api/messaging/webhooks/cloud-api',
    'Messaging (cloud API) messages and statuses',
    [
      signature(
        'messaging',
        'x-hub-signature-256',
        '`sha256=<hex HMAC-SHA256 of the raw body>` with MESSAGING_APP_SECRET',
      ),
    ],
    { object: 'whatsapp_business_account', entry: [] },
  );
  addOperation(registry, {
    method: 'post',
    path: '/api/communications/webhooks',
    tag: RECEIVERS,
    summary: 'Telephony call and SMS status callbacks (form-encoded)',
    auth: {
      signatures: [
        signature(
          'telephony',
          'x-telephony-signature',
          "base64 HMAC-SHA1 of the URL and sorted form parameters with the number's auth token",
        ),
      ],
    },
    body: {
      schema: z.record(z.string(), z.string()),
      contentType: 'application/x-www-form-urlencoded',
      example: { CallSid: 'CA123', CallStatus: 'completed', To: '+15551234567' },
    },
    success: {
      description: 'Acknowledged (empty TwiML)',
      contentType: 'text/xml',
      bare: z.string(),
      example: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>',
    },
    errors: [400, 413],
  });
  receiver(
    '/api/commerce/webhook/storefront-a',
    'Storefront A orders and customers',
    [
      signature(
        'storefrontA',
        'x-storefront-a-hmac-sha256',
        "base64 HMAC-SHA256 of the raw body with the connection's secret; `x-storefront-a-shop-domain` and `x-storefront-a-topic` name the shop and event",
      ),
    ],
    { id: 1001, email: 'ada@example.com', total_price: '19.99' },
  );
  receiver(
    '/api/commerce/webhook/storefront-b',
    'Storefront B orders and customers',
    [
      signature(
        'storefrontB',
        'x-storefront-b-webhook-signature',
        "base64 HMAC-SHA256 of the raw body with the connection's secret; `x-storefront-b-webhook-source` and `x-storefront-b-webhook-topic` name the store and event",
      ),
    ],
    { id: 2002, billing: { email: 'ada@example.com' }, total: '19.99' },
  );
  receiver(
    '/api/payments/webhook',
    'Payment provider events, one URL per payment connection',
    [
      signature('stripe', 'Stripe-Signature', '`t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`'),
      signature('paddle', 'Paddle-Signature', '`ts=<unix>;h1=<hex HMAC-SHA256 of "ts:body">`'),
      signature('razorpay', 'X-Razorpay-Signature', 'hex HMAC-SHA256 of the raw body'),
      signature('lemonsqueezy', 'X-Signature', 'hex HMAC-SHA256 of the raw body'),
    ],
    { id: 'evt_1', type: 'payment_intent.succeeded', data: { object: {} } },
    {
      query: z.object({ provider: z.enum(PAYMENT_PROVIDERS), connection: z.uuid() }),
      errors: [400, 404, 413],
    },
  );
}
