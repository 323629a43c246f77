import { withSystemScope } from '@crm/shared/db';
import { errors, rawBody, requestLogger } from '@crm/shared/http';
import { Router, type Request, type RequestHandler } from 'express';
import { recordDelivery, type DeliveryScope, type Outcome } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import { parseJsonBody, secretUnavailable, rawBytes } from '@crm/shared/inbound';
import { outcomeOf, receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { findPaymentConnection } from '../../tenancy/cross-tenant-lookups';
import type { PaymentEvent, PaymentProvider } from './payment-event';
import { isPaymentProvider, PAYMENT_PROVIDER_MODULES } from './providers';
import { handlePayment, type PaymentConnection } from './payments-delivery';

export const PAYMENTS_PATH = '/api/payments/webhook';

/**
 * POST /api/payments/webhook?provider=<p>&connection=<uuid>: one URL per payment connection,
 * registered in that provider's dashboard. The connection (tenant and sealed secret) comes
 * from the URL; the provider's module verifies the raw body with the connection's secret,
 * then normalises the event; payments are stored, other event types acknowledged as ignored.
 */
export function paymentsReceiver(ctx: ReceiverContext): Router {
  const router = Router();
  router.post(
    PAYMENTS_PATH,
    requireKnownProvider,
    rawBody(ctx.bodyLimitBytes),
    async (req, res) => {
      const provider = req.query.provider as PaymentProvider;
      const module = PAYMENT_PROVIDER_MODULES[provider];
      const { connection, secret } = await resolveConnection(ctx, req, provider);
      const raw = rawBytes(req);
      const verification = module.verify(raw, req.headers, secret, new Date());
      if (!verification.ok) throw verification.rejection;

      const body = parseJsonBody(raw);
      const event = module.normalize(body, raw);
      const recorded = await recordDelivery(
        ctx.db,
        {
          provider: `payments_${provider}`,
          deliveryId: `${connection.connectionId}:${event.eventId}`,
          eventType: event.eventType,
          rawBody: raw,
          contentType: req.headers['content-type'],
          verification: 'verified',
          headers: req.headers,
          tenantId: connection.tenantId,
        },
        (scope) => handlePaymentEvent(scope, connection, event, body),
      );
      requestLogger(ctx.logger, req).info(
        {
          provider: `payments_${provider}`,
          connectionId: connection.connectionId,
          eventType: event.eventType,
          outcome: outcomeOf(recorded),
        },
        'payment webhook received',
      );
      res.json(receivedBody(recorded));
    },
  );
  return router;
}

/** A payment is stored; any other event type is acknowledged as ignored. */
async function handlePaymentEvent(
  scope: DeliveryScope,
  connection: PaymentConnection,
  event: PaymentEvent,
  body: unknown,
): Promise<Outcome> {
  return event.payment
    ? handlePayment(scope, connection, event.payment, body)
    : {
        outcome: 'ignored',
        tenantId: connection.tenantId,
        detail: event.ignoredReason ?? `Event type ${event.eventType} is not stored`,
      };
}

/**
 * Re-processes a stored payment delivery that failed after the connection's secret verified
 * it: the same event normalised from the same bytes, stored for the same connection, under the
 * same ledger key (claimed again only while it is still failed).
 */
export function replayPaymentDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  connection: PaymentConnection,
) {
  const delivery = deliveryOf(stored, connection.tenantId);
  const body = parseJsonBody(delivery.rawBody);
  const event = PAYMENT_PROVIDER_MODULES[connection.provider].normalize(body, delivery.rawBody);
  return recordDelivery(ctx.db, delivery, (scope) =>
    handlePaymentEvent(scope, connection, event, body),
  );
}

/** Before anything else, the provider must be one we have a module for. */
const requireKnownProvider: RequestHandler = (req, _res, next) => {
  if (isPaymentProvider(req.query.provider)) return next();
  next(
    errors.invalidRequest(
      'Invalid request',
      'The provider query parameter must be one of: stripe, razorpay, paddle, lemonsqueezy',
      { parameter: 'provider' },
    ),
  );
};

/**
 * The connection named in the URL, and its opened secret. Unknown, malformed, and another
 * provider's connection all answer the same 404, so the URL reveals nothing more. A secret
 * that does not open (the key changed) verifies nothing: the caller answers 401.
 */
async function resolveConnection(
  ctx: ReceiverContext,
  req: Request,
  provider: PaymentProvider,
): Promise<{ connection: PaymentConnection; secret: string }> {
  const connectionId = req.query.connection;
  const stored =
    typeof connectionId === 'string'
      ? await withSystemScope(ctx.db, (trx) => findPaymentConnection(trx, connectionId))
      : undefined;
  if (!stored || stored.provider !== provider) {
    throw errors.notFound('Payment connection not found');
  }
  const secret = stored.secretCiphertext ? ctx.secrets.open(stored.secretCiphertext) : undefined;
  if (secret === undefined) {
    // Sealed under another key (CONNECTION_SECRETS_KEY changed): see secretUnavailable().
    requestLogger(ctx.logger, req).error(
      { connectionId: stored.connectionId },
      'Payment connection secret cannot be opened with the current key',
    );
    throw secretUnavailable();
  }
  return {
    connection: { tenantId: stored.tenantId, connectionId: stored.connectionId, provider },
    secret,
  };
}
