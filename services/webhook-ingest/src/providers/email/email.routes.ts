import { rawBody } from '@crm/shared/http';
import { Router, type Request, type Response } from 'express';
import { recordDelivery } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import {
  deliveryIdFrom,
  headerValue,
  parseJsonBody,
  rawBytes,
  secretNotConfigured,
  verifyWithEither,
} from '@crm/shared/inbound';
import { receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { parseEmailEvent } from './event';
import { handleEmailEvent } from './email-delivery';
import { EMAIL_HEADERS, verifyEmailSignature } from './email-signature';

export const EMAIL_PATH = '/api/webhooks/email';

/**
 * /api/webhooks/email (specified: POST only). Refusals, in order: secret unset ->
 * 503 `Webhook secret not configured` (our choice; the specification leaves it open, and it matches
 * the network receiver's); bad, missing or stale signature -> 401; verified but unreadable body ->
 * 400. None of them writes anything, not even the ledger.
 */
export function emailReceiver(ctx: ReceiverContext): Router {
  const router = Router();

  router.post(EMAIL_PATH, rawBody(ctx.bodyLimitBytes), async (req: Request, res: Response) => {
    const secret = ctx.config.EMAIL_WEBHOOK_SECRET;
    if (!secret) throw secretNotConfigured('email');
    const body = rawBytes(req);
    const verification = verifyWithEither(secret, ctx.config.EMAIL_WEBHOOK_SECRET_PREVIOUS, (s) =>
      verifyEmailSignature(body, req.headers, s, new Date()),
    );
    if (!verification.ok) throw verification.rejection;

    const event = readEmailDelivery(body);
    const recorded = await recordDelivery(
      ctx.db,
      {
        provider: 'email',
        // Standard Webhooks: the message id is stable across the provider's retries.
        deliveryId: deliveryIdFrom(headerValue(req.headers, EMAIL_HEADERS.id), body),
        eventType: event.type,
        rawBody: body,
        contentType: req.get('content-type'),
        verification: 'verified',
        headers: req.headers,
      },
      (scope) => handleEmailEvent(scope, event),
    );
    res.json('result' in recorded ? recorded.result.response : receivedBody(recorded));
  });

  return router;
}

/**
 * Re-processes a stored email delivery that failed after its signature verified: the same event
 * read from the same bytes, routed by its provider message id to the original send's tenant as
 * stored today, under the same ledger key. It writes only when that is still the asking tenant
 * (else NotRoutedToTenant, nothing written).
 */
export function replayEmailDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
) {
  const delivery = deliveryOf(stored, tenantId);
  const event = readEmailDelivery(delivery.rawBody);
  return recordDelivery(ctx.db, delivery, (scope) => handleEmailEvent(scope, event));
}

/** The event a verified body carries; 400 when it is not one. */
function readEmailDelivery(body: Buffer) {
  return parseEmailEvent(parseJsonBody(body));
}
