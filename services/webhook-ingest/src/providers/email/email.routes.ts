import { rawBody } from '@crm/shared/http';
import { Router, type Request, type Response } from 'express';
import { recordDelivery } from '../../ledger/record-delivery';
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
import { handleEmailEvent } from './handle';
import { EMAIL_HEADERS, verifyEmailSignature } from './verify';

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

    const event = parseEmailEvent(parseJsonBody(body));
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
