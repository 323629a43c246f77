import { rawBody, requestLogger } from '@crm/shared/http';
import { Router, type RequestHandler } from 'express';
import {
  deliveryIdFrom,
  parseJsonBody,
  rawBytes,
  secretNotConfigured,
  verifyWithEither,
} from '@crm/shared/inbound';
import { recordDelivery, type Outcome } from '../../ledger/record-delivery';
import { outcomeOf, receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { handleSubscriptionChange } from './handle';
import {
  isSubscriptionEvent,
  parseBillingEvent,
  subscriptionChangeFrom,
} from './subscription-change';
import { verify } from './verify';

export const BILLING_PATH = '/api/webhooks/billing';

/**
 * /api/webhooks/billing (specified: POST and GET): our own subscription provider. GET is the
 * readiness probe; POST is verified (billing-signature, Stripe scheme) on the raw bytes, then the
 * event updates the tenant's subscription record and plan. Every verified event is recorded once in
 * the ledger under its event id; a redelivery is acknowledged and changes nothing.
 */
export function billingReceiver(ctx: ReceiverContext): Router {
  const router = Router();
  router.get(BILLING_PATH, (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.post(BILLING_PATH, requireSecret(ctx), rawBody(ctx.bodyLimitBytes), async (req, res) => {
    const raw = rawBytes(req);
    const secret = ctx.config.BILLING_WEBHOOK_SECRET ?? '';
    const verification = verifyWithEither(secret, ctx.config.BILLING_WEBHOOK_SECRET_PREVIOUS, (s) =>
      verify(raw, req.headers, s, new Date()),
    );
    if (!verification.ok) throw verification.rejection;

    // Shape errors are answered (400) before the ledger is touched: nothing is written.
    const event = parseBillingEvent(parseJsonBody(raw));
    const change = isSubscriptionEvent(event.type)
      ? subscriptionChangeFrom(event.type, event.data?.object)
      : undefined;
    const recorded = await recordDelivery(
      ctx.db,
      {
        provider: 'billing',
        deliveryId: deliveryIdFrom(event.id, raw),
        eventType: event.type,
        rawBody: raw,
        contentType: req.headers['content-type'],
        verification: 'verified',
        headers: req.headers,
      },
      async (scope) =>
        change ? handleSubscriptionChange(scope, change, event.type) : ignored(event.type),
    );
    requestLogger(ctx.logger, req).info(
      { provider: 'billing', eventType: event.type, outcome: outcomeOf(recorded) },
      'billing webhook received',
    );
    res.json(receivedBody(recorded));
  });
  return router;
}

/**
 * Specified: with no secret the receiver refuses (503 is our choice of status), before reading or
 * checking anything.
 */
function requireSecret(ctx: ReceiverContext): RequestHandler {
  return (_req, _res, next) => {
    next(ctx.config.BILLING_WEBHOOK_SECRET ? undefined : secretNotConfigured('billing'));
  };
}

/** A type we do not handle, or an invoice or checkout that concerns no subscription. */
function ignored(type: string): Outcome {
  return {
    outcome: 'ignored',
    detail: isSubscriptionEvent(type)
      ? `${type} without a subscription`
      : `Event type ${type} is not handled`,
  };
}
