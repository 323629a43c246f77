import { withSystemScope } from '@crm/shared/db';
import { errors, rawBody, requestLogger } from '@crm/shared/http';
import { Router, type Request, type RequestHandler } from 'express';
import { recordDelivery } from '../../ledger/record-delivery';
import { parseJsonBody, secretUnavailable, rawBytes } from '@crm/shared/inbound';
import { outcomeOf, receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { findPaymentConnection } from '../../tenancy/cross-tenant-lookups';
import type { PaymentProvider } from './payment-event';
import { isPaymentProvider, PAYMENT_PROVIDER_MODULES } from './providers';
import { handlePayment, type PaymentConnection } from './handle';

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
        },
        async (scope) =>
          event.payment
            ? handlePayment(scope, connection, event.payment, body)
            : {
                outcome: 'ignored',
                tenantId: connection.tenantId,
                detail: event.ignoredReason ?? `Event type ${event.eventType} is not stored`,
              },
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
