import { rawBody, requestLogger } from '@crm/shared/http';
import { Router, type RequestHandler } from 'express';
import {
  deliveryIdFrom,
  parseJsonBody,
  rawBytes,
  secretNotConfigured,
  verifyWithEither,
} from '@crm/shared/inbound';
import { recordDelivery, type DeliveryScope, type Outcome } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import { outcomeOf, receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { handleSubscriptionChange } from './billing-delivery';
import {
  isSubscriptionEvent,
  parseBillingEvent,
  subscriptionChangeFrom,
  type BillingEvent,
  type SubscriptionChange,
} from './subscription-change';
import { verify } from './billing-signature';

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
    const { event, change } = readBillingDelivery(raw);
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
      (scope) => handleBillingEvent(scope, event, change),
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
 * Re-processes a stored billing delivery that failed after its signature verified: the same
 * event read from the same bytes, routed to its tenant by content with today's data (the
 * metadata's tenant, else the tenant of the stored customer id), under the same ledger key.
 * It writes only when that is still the asking tenant (else NotRoutedToTenant, nothing
 * written).
 */
export function replayBillingDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
) {
  const delivery = deliveryOf(stored, tenantId);
  const { event, change } = readBillingDelivery(delivery.rawBody);
  return recordDelivery(ctx.db, delivery, (scope) => handleBillingEvent(scope, event, change));
}

/** The event of a verified body, and the subscription change it describes, if any (else 400). */
function readBillingDelivery(raw: Buffer) {
  const event = parseBillingEvent(parseJsonBody(raw));
  const change = isSubscriptionEvent(event.type)
    ? subscriptionChangeFrom(event.type, event.data?.object)
    : undefined;
  return { event, change };
}

async function handleBillingEvent(
  scope: DeliveryScope,
  event: BillingEvent,
  change: SubscriptionChange | undefined,
): Promise<Outcome> {
  return change ? handleSubscriptionChange(scope, change, event.type) : ignored(event.type);
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
