import { sendSuccess } from '@crm/shared/http';
import { Router } from 'express';
import type { ReceiverContext } from '../receivers/receiver-context';

/** What a provider's dashboard needs to send a tenant's deliveries here. */
export interface ReceiverGuide {
  /** The integration it belongs to: the resource under /api/integrations that connects it. */
  kind: 'storefront_a' | 'storefront_b' | 'payments' | 'messaging' | 'network' | 'telephony';
  name: string;
  /** The full receiver URL to register (`<PUBLIC_BASE_URL><path>`); payments: a template. */
  url: string;
  /** The secret that signs the deliveries: never its value, only which one and where it lives. */
  secret: string;
  /** The headers the provider sends that the receiver reads. */
  headers: { name: string; carries: string }[];
  /**
   * Platform-wide secrets (messaging, network, telephony) are the operator's setting: whether
   * it is set, so a workspace knows its deliveries can be verified. Null for per-connection
   * secrets, whose state each connection shows (`hasWebhookSecret`).
   */
  platformSecretSet: boolean | null;
}

/**
 * GET /api/integrations/receivers: per provider kind, the receiver URL built from
 * PUBLIC_BASE_URL (which only the server knows: the console may be served from elsewhere) and
 * what the provider needs. Any member may read it: it holds no secret.
 */
export function receiverRoutes(ctx: ReceiverContext): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    sendSuccess(res, { receivers: receiverGuides(ctx) });
  });
  return router;
}

export function receiverGuides({ config }: ReceiverContext): ReceiverGuide[] {
  const base = config.PUBLIC_BASE_URL;
  const signature = (name: string) => ({ name, carries: 'the signature of the raw body' });
  return [
    {
      kind: 'storefront_a',
      name: 'Storefront A (Shopify-style)',
      url: `${base}/api/commerce/webhook/storefront-a`,
      secret: "The shop's webhook signing secret, stored as the connection's webhook secret",
      headers: [
        signature('x-storefront-a-hmac-sha256'),
        { name: 'x-storefront-a-shop-domain', carries: 'the shop domain the connection names' },
        { name: 'x-storefront-a-topic', carries: 'the topic, e.g. orders/create' },
      ],
      platformSecretSet: null,
    },
    {
      kind: 'storefront_b',
      name: 'Storefront B (WooCommerce-style)',
      url: `${base}/api/commerce/webhook/storefront-b`,
      secret: "The webhook's secret, stored as the connection's webhook secret",
      headers: [
        signature('x-storefront-b-webhook-signature'),
        { name: 'x-storefront-b-webhook-source', carries: 'the shop URL the connection names' },
        { name: 'x-storefront-b-webhook-topic', carries: 'the topic, e.g. order.created' },
      ],
      platformSecretSet: null,
    },
    {
      kind: 'payments',
      name: 'Payments (Stripe, Razorpay, Paddle, Lemon Squeezy)',
      url: `${base}/api/payments/webhook?provider=<provider>&connection=<connection id>`,
      secret:
        "The provider's webhook signing secret, stored as the connection's webhook secret; each connection shows its own URL",
      headers: [
        { name: 'Stripe-Signature', carries: 'stripe: the signature of the raw body' },
        { name: 'X-Razorpay-Signature', carries: 'razorpay: the signature of the raw body' },
        { name: 'Paddle-Signature', carries: 'paddle: the signature of the raw body' },
        { name: 'X-Signature', carries: 'lemonsqueezy: the signature of the raw body' },
      ],
      platformSecretSet: null,
    },
    {
      kind: 'messaging',
      name: 'Messaging (WhatsApp Cloud API-style)',
      url: `${base}/api/messaging/webhooks/cloud-api`,
      secret:
        "The platform's app secret (MESSAGING_APP_SECRET, set by the operator); register the number's verification URL to prove it",
      headers: [signature('x-hub-signature-256')],
      platformSecretSet: Boolean(config.MESSAGING_APP_SECRET),
    },
    {
      kind: 'network',
      name: 'Professional network',
      url: `${base}/api/webhooks/network`,
      secret:
        "The platform's network secret (NETWORK_WEBHOOK_SECRET, set by the operator); register the account's verification URL to prove it",
      headers: [signature('x-network-signature')],
      platformSecretSet: Boolean(config.NETWORK_WEBHOOK_SECRET),
    },
    {
      kind: 'telephony',
      name: 'Telephony (Twilio-style)',
      url: `${base}/api/communications/webhooks`,
      secret:
        "The platform's auth token (TELEPHONY_AUTH_TOKEN, set by the operator); register the number's verification URL as its status callback to prove it",
      headers: [
        {
          name: 'X-Telephony-Signature',
          carries: 'the signature of the URL and the form parameters',
        },
      ],
      platformSecretSet: Boolean(config.TELEPHONY_AUTH_TOKEN),
    },
  ];
}
