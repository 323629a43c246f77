import { rawBody } from '@crm/shared/http';
import { Router } from 'express';
import { recordDelivery } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import {
  bodyDigestId,
  deliveryIdFrom,
  rawBytes,
  secretNotConfigured,
  verifyWithEither,
} from '@crm/shared/inbound';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { readCallUpdate, type CallUpdate } from './call-params';
import { paramsAsJson, parseFormParams, storableParams, type FormParams } from './form-params';
import { proofTokenOf } from '../../tenancy/identifier-proofs';
import { handleCallDelivery } from './telephony-delivery';
import { verify } from './telephony-signature';

export const TELEPHONY_PATH = '/api/communications/webhooks';
const PROVIDER = 'telephony';
/** What Twilio expects back from a status callback: valid TwiML that does nothing. */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * /api/communications/webhooks (specified: POST): call status callbacks, form-encoded and
 * signed the Twilio way over the PUBLIC URL (PUBLIC_BASE_URL + the path and query as the caller
 * sent them to the gateway; the gateway forwards both untouched). No auth token configured:
 * 503 `Webhook secret not configured`, since an unverifiable callback must not be stored.
 */
export function telephonyReceiver(ctx: ReceiverContext): Router {
  const router = Router();

  router.post(TELEPHONY_PATH, rawBody(ctx.bodyLimitBytes), async (req, res) => {
    const authToken = ctx.config.TELEPHONY_AUTH_TOKEN;
    if (!authToken) throw secretNotConfigured(PROVIDER);
    const body = rawBytes(req);
    const url = ctx.config.PUBLIC_BASE_URL + req.originalUrl;
    const verification = verifyWithEither(
      authToken,
      ctx.config.TELEPHONY_AUTH_TOKEN_PREVIOUS,
      (s) => verify(body, req.headers, s, url),
    );
    if (!verification.ok) throw verification.rejection;

    const { params, call } = readTelephonyDelivery(body);
    await recordDelivery(
      ctx.db,
      {
        provider: PROVIDER,
        deliveryId: deliveryIdOf(call, body),
        eventType: call?.status ?? null,
        rawBody: body,
        contentType: req.get('content-type'),
        verification: 'verified',
        headers: req.headers,
      },
      (scope) => handleCallDelivery(scope, call, paramsAsJson(params), proofTokenOf(req.query)),
    );
    // Duplicates and deliveries recorded as not storable included: Twilio only needs a 2xx
    // and TwiML; a body it cannot parse is logged as an error in the customer's console.
    res.status(200).type('text/xml').send(EMPTY_TWIML);
  });

  return router;
}

/**
 * Re-processes a stored status callback that failed after its signature verified: the same
 * call read from the same bytes, routed by its own number to today's proven claim, under the
 * same ledger key. It proves no claim (the verification URL is not part of the stored
 * delivery), and writes only when the number is still the asking tenant's (else
 * NotRoutedToTenant, nothing written).
 */
export function replayTelephonyDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
) {
  const delivery = deliveryOf(stored, tenantId);
  const { params, call } = readTelephonyDelivery(delivery.rawBody);
  return recordDelivery(ctx.db, delivery, (scope) =>
    handleCallDelivery(scope, call, paramsAsJson(params)),
  );
}

/** A verified body's form parameters (made storable) and the call update they carry, if any. */
function readTelephonyDelivery(body: Buffer): { params: FormParams; call: CallUpdate | undefined } {
  const params = storableParams(parseFormParams(body));
  return { params, call: readCallUpdate(params) };
}

/**
 * One delivery per call status, `CallSid:CallStatus`, both signed parameters; else the body
 * digest. Never Twilio's I-Twilio-Idempotency-Token: the signature does not cover headers, so
 * a callback re-sent with another token must still be the same delivery.
 */
function deliveryIdOf(call: CallUpdate | undefined, body: Buffer): string {
  if (call) return deliveryIdFrom(`${call.callSid}:${call.status}`, body);
  return bodyDigestId(body);
}
