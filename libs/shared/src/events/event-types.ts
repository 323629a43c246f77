/**
 * Every event type the platform emits through the outbox, in one place: the automation service
 * accepts a workflow trigger only when it names one of these (or is a pattern such as `lead.*`
 * that matches at least one), and docs/automations.md lists them. A writer that starts emitting
 * a new type adds it here.
 */
export const PLATFORM_EVENT_TYPES = [
  'lead.created',
  'lead.updated',
  'lead.deleted',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'product.created',
  'product.updated',
  'deal.created',
  'deal.updated',
  'deal.stage_changed',
  'deal.deleted',
  'activity.created',
  'activity.updated',
  'form.submitted',
  'email.opened',
  'email.clicked',
  'email.replied',
  'network.activity',
  'conversation.created',
  'message.received',
  'message.status_updated',
  'call.completed',
  'call.status_changed',
  'order.created',
  'order.updated',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'billing.subscription_updated',
] as const;

export type PlatformEventType = (typeof PLATFORM_EVENT_TYPES)[number];
