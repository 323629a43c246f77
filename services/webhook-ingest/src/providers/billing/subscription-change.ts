import { z } from 'zod';
import { unprocessable } from '@crm/shared/inbound';

/**
 * What a billing event says about one subscription, read from the provider's object (Stripe
 * shapes: subscriptions, invoices, checkout sessions). Pure: no database, no clock.
 */
export interface SubscriptionChange {
  subscriptionId: string;
  customerId: string | null;
  status: string;
  /** Price lookup key, else price id, else `metadata.plan`; null when the event names none. */
  plan: string | null;
  currentPeriodEnd: Date | null;
  /** The `tenant_id` our checkout put in the metadata (or client_reference_id), if any. */
  tenantHint: string | null;
  /** The subscription has ended: the tenant falls back to another live plan or 'free'. */
  ended: boolean;
}

/** The event envelope: a body without an id and a type is not an event (400). */
const eventSchema = z.object({
  id: z.string().trim().min(1).max(255),
  type: z.string().trim().min(1).max(255),
  data: z.object({ object: z.record(z.string(), z.unknown()) }).nullish(),
});
export type BillingEvent = z.infer<typeof eventSchema>;

export const SUBSCRIPTION_EVENT_TYPES = [
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
  'checkout.session.completed',
] as const;
type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

const ENDED_STATUSES = new Set(['canceled', 'incomplete_expired']);

const id = z.string().trim().min(1).max(255);
/** Stripe sends related objects as an id, or expanded as an object with an id. */
const reference = z
  .union([id, z.object({ id })])
  .nullish()
  .transform((value) => (typeof value === 'string' ? value : (value?.id ?? null)));
const metadata = z.record(z.string(), z.unknown()).nullish();
/** Unix seconds within what a timestamptz holds comfortably (up to year 9999). */
const unixSeconds = z.int().min(0).max(253_402_300_799);
const price = z.object({ id: id.nullish(), lookup_key: z.string().max(255).nullish() }).nullish();

const subscriptionSchema = z.object({
  id,
  customer: reference,
  status: z.string().trim().min(1).max(50),
  metadata,
  current_period_end: unixSeconds.nullish(),
  items: z
    .object({
      // Since API version 2025-03-31 the period end lives on each item.
      data: z.array(z.object({ price, current_period_end: unixSeconds.nullish() })),
    })
    .nullish(),
});

const invoiceSchema = z.object({
  id,
  customer: reference,
  // Before API version 2025-03-31: `subscription` and `subscription_details`.
  subscription: reference,
  subscription_details: z.object({ metadata }).nullish(),
  // Since then: `parent.subscription_details`.
  parent: z
    .object({ subscription_details: z.object({ subscription: reference, metadata }).nullish() })
    .nullish(),
  metadata,
  lines: z
    .object({
      data: z.array(
        // Since API version 2025-03-31 a line names its price by id only (`pricing`), which
        // would replace a lookup-key plan name; such lines leave the stored plan as it is.
        z.object({ price, period: z.object({ end: unixSeconds }).nullish() }),
      ),
    })
    .nullish(),
});

const checkoutSessionSchema = z.object({
  id,
  customer: reference,
  subscription: reference,
  client_reference_id: z.string().max(255).nullish(),
  metadata,
});

/** The envelope of a verified, parsed body; 400 when it is not an event. */
export function parseBillingEvent(body: unknown): BillingEvent {
  const parsed = eventSchema.safeParse(body);
  if (!parsed.success)
    throw unprocessable('The body is not a billing event (id and type required)');
  return parsed.data;
}

export function isSubscriptionEvent(type: string): type is SubscriptionEventType {
  return (SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * The change a subscription event describes; undefined when the event concerns no
 * subscription (an invoice or checkout without one). A wrong shape is a 400.
 */
export function subscriptionChangeFrom(
  type: SubscriptionEventType,
  object: unknown,
): SubscriptionChange | undefined {
  switch (type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return fromSubscription(parse(subscriptionSchema, object), type);
    case 'invoice.paid':
    case 'invoice.payment_failed':
      return fromInvoice(parse(invoiceSchema, object), type);
    case 'checkout.session.completed':
      return fromCheckoutSession(parse(checkoutSessionSchema, object));
  }
}

function parse<T>(schema: z.ZodType<T>, object: unknown): T {
  const parsed = schema.safeParse(object);
  if (!parsed.success) {
    throw unprocessable('The event object does not have the expected shape', {
      issues: parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      })),
    });
  }
  return parsed.data;
}

function fromSubscription(
  subscription: z.infer<typeof subscriptionSchema>,
  type: SubscriptionEventType,
): SubscriptionChange {
  const item = subscription.items?.data[0];
  return {
    subscriptionId: subscription.id,
    customerId: subscription.customer,
    status: subscription.status,
    plan: item?.price?.lookup_key || item?.price?.id || metadataText(subscription.metadata, 'plan'),
    currentPeriodEnd: fromUnix(subscription.current_period_end ?? item?.current_period_end),
    tenantHint: metadataText(subscription.metadata, 'tenant_id'),
    ended: type === 'customer.subscription.deleted' || ENDED_STATUSES.has(subscription.status),
  };
}

/**
 * Invoices say whether a period was paid, not the subscription's full state: paid means
 * active, a failed payment means past_due (Stripe's own status after a failed renewal).
 */
function fromInvoice(
  invoice: z.infer<typeof invoiceSchema>,
  type: SubscriptionEventType,
): SubscriptionChange | undefined {
  const details = invoice.parent?.subscription_details;
  const subscriptionId = details?.subscription ?? invoice.subscription;
  if (!subscriptionId) return undefined;
  const subscriptionMetadata = details?.metadata ?? invoice.subscription_details?.metadata;
  const line = invoice.lines?.data[0];
  return {
    subscriptionId,
    customerId: invoice.customer,
    status: type === 'invoice.paid' ? 'active' : 'past_due',
    plan:
      line?.price?.lookup_key ||
      line?.price?.id ||
      metadataText(subscriptionMetadata, 'plan') ||
      metadataText(invoice.metadata, 'plan'),
    currentPeriodEnd: fromUnix(line?.period?.end),
    tenantHint:
      metadataText(subscriptionMetadata, 'tenant_id') ??
      metadataText(invoice.metadata, 'tenant_id'),
    ended: false,
  };
}

/** A completed checkout in subscription mode starts (or confirms) an active subscription. */
function fromCheckoutSession(
  session: z.infer<typeof checkoutSessionSchema>,
): SubscriptionChange | undefined {
  if (!session.subscription) return undefined;
  return {
    subscriptionId: session.subscription,
    customerId: session.customer,
    status: 'active',
    plan: metadataText(session.metadata, 'plan'),
    currentPeriodEnd: null,
    tenantHint:
      metadataText(session.metadata, 'tenant_id') ?? (session.client_reference_id || null),
    ended: false,
  };
}

function metadataText(
  values: Record<string, unknown> | null | undefined,
  key: string,
): string | null {
  const value = values?.[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 255) : null;
}

function fromUnix(seconds: number | null | undefined): Date | null {
  return typeof seconds === 'number' ? new Date(seconds * 1000) : null;
}
