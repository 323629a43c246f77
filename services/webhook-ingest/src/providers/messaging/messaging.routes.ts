import { errors, rawBody, requestLogger } from '@crm/shared/http';
import { Router } from 'express';
import { recordDelivery } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import {
  bodyDigestId,
  parseJsonBody,
  rawBytes,
  unprocessable,
  verifyWithEither,
} from '@crm/shared/inbound';
import { receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { proofTokenOf } from '../../tenancy/identifier-proofs';
import { handleMessagingDelivery } from './messaging-delivery';
import { answerHandshake } from './handshake';
import { readChanges } from './messaging-payload';
import { verify } from './messaging-signature';

export const MESSAGING_PATH = '/api/messaging/webhooks/cloud-api';
const PROVIDER = 'messaging';
export const UNVERIFIED_WARNING =
  'MESSAGING_APP_SECRET is unset: messaging webhooks are accepted WITHOUT signature verification (development only)';

/**
 * /api/messaging/webhooks/cloud-api (specified: POST and GET): GET is the subscription
 * handshake; POST carries messages and delivery statuses, signed with the app secret.
 * With no app secret the signature check is skipped (the specified development fallback), loudly:
 * once when the router is built and on every accepted request, and the ledger says 'skipped'.
 * A tenant proves its claim to a number by having the provider deliver that number's webhooks
 * to the claim's verification URL (this path with `?claim=<token>`; docs/integrations.md).
 */
export function messagingReceiver(ctx: ReceiverContext): Router {
  const router = Router();
  if (!ctx.config.MESSAGING_APP_SECRET) ctx.logger.warn({ receiver: PROVIDER }, UNVERIFIED_WARNING);

  router.get(MESSAGING_PATH, (req, res) => {
    const answer = answerHandshake(
      req.query as Record<string, unknown>,
      ctx.config.MESSAGING_WEBHOOK_VERIFY_TOKEN,
    );
    if (!answer.ok && answer.reason === 'missing_challenge') {
      throw unprocessable('The hub.challenge parameter is required');
    }
    if (!answer.ok) throw errors.forbidden('The verify token does not match');
    // The challenge is echoed verbatim: as plain text that no browser may sniff into HTML.
    res
      .status(200)
      .set('X-Content-Type-Options', 'nosniff')
      .type('text/plain')
      .send(answer.challenge);
  });

  router.post(MESSAGING_PATH, rawBody(ctx.bodyLimitBytes), async (req, res) => {
    const body = rawBytes(req);
    const secret = ctx.config.MESSAGING_APP_SECRET;
    if (secret) {
      const verification = verifyWithEither(secret, ctx.config.MESSAGING_APP_SECRET_PREVIOUS, (s) =>
        verify(body, req.headers, s),
      );
      if (!verification.ok) throw verification.rejection;
    } else {
      requestLogger(ctx.logger, req).warn({ receiver: PROVIDER }, UNVERIFIED_WARNING);
    }
    // Not JSON, or nested deeper than any real payload: 400 before anything is written.
    const payload = parseJsonBody(body);
    const recorded = await recordDelivery(
      ctx.db,
      {
        provider: PROVIDER,
        // Meta sends no delivery id: a byte-identical resend is the duplicate we can see.
        deliveryId: bodyDigestId(body),
        eventType: objectOf(payload),
        rawBody: body,
        contentType: req.get('content-type'),
        verification: secret ? 'verified' : 'skipped',
        headers: req.headers,
      },
      (scope) => handleMessagingDelivery(scope, readChanges(payload), proofTokenOf(req.query)),
    );
    res.status(200).json(receivedBody(recorded));
  });

  return router;
}

/**
 * Re-processes a stored messaging delivery that failed after its signature verified: the same
 * changes read from the same bytes, each routed by its phone_number_id to today's proven claim,
 * under the same ledger key. It proves no claim (a verification URL's token is not part of the
 * stored delivery), and writes only when every change it stores is the asking tenant's (else
 * NotRoutedToTenant, nothing written).
 */
export function replayMessagingDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
) {
  const delivery = deliveryOf(stored, tenantId);
  const changes = readChanges(parseJsonBody(delivery.rawBody));
  return recordDelivery(ctx.db, delivery, (scope) => handleMessagingDelivery(scope, changes));
}

/** The payload's `object` (e.g. `whatsapp_business_account`), bounded, for the ledger. */
function objectOf(payload: unknown): string | null {
  const value = (payload as { object?: unknown } | null)?.object;
  return typeof value === 'string' ? value.slice(0, 100) : null;
}
