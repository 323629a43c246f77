import { rawBody } from '@crm/shared/http';
import { Router, type Request, type Response } from 'express';
import { GroupCommit } from '../../ledger/group-commit';
import { recordDeliveries } from '../../ledger/record-deliveries';
import { recordDelivery, type Delivery, type Recorded } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import {
  bodyDigestId,
  parseJsonBody,
  rawBytes,
  secretNotConfigured,
  unprocessable,
  verifyWithEither,
} from '@crm/shared/inbound';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { proofTokenOf } from '../../tenancy/identifier-proofs';
import { classifyBatch, type ClassifiedBatch } from './batch';
import { handleNetworkBatch, handleNetworkBatches, type NetworkOutcome } from './network-delivery';
import { challengeQuerySchema } from './network.schema';
import { verifyNetworkSignature } from './network-signature';

export const NETWORK_PATH = '/api/webhooks/network';

/**
 * /api/webhooks/network (specified: POST and GET): GET is the partner's readiness probe and
 * challenge handshake; POST carries signed activity: one event object, `{ events: [...] }` or
 * a top-level array, at most 5,000 events. POST refusals, in order: secret unset -> 503; a
 * missing, malformed, stale or wrong signature -> 401; a verified body that is not JSON, not
 * one of those shapes, or over the limit -> 400. None of them writes anything, not even the
 * ledger. Otherwise 200 `{ ok, inserted, unmatched, unsupported }`.
 */
export function networkReceiver(ctx: ReceiverContext): Router {
  const router = Router();
  const writer = networkWriter(ctx);

  router.get(NETWORK_PATH, (req: Request, res: Response) => {
    const query = challengeQuerySchema.safeParse(req.query);
    if (!query.success) throw unprocessable(query.error.issues[0].message);
    const { challenge } = query.data;
    if (challenge === undefined) {
      res.json({ ok: true, status: 'ready' });
      return;
    }
    // The value is reflected verbatim: plain text that browsers must not sniff into HTML.
    res.set('X-Content-Type-Options', 'nosniff').type('text/plain').send(challenge);
  });

  router.post(NETWORK_PATH, rawBody(ctx.bodyLimitBytes), async (req: Request, res: Response) => {
    const secret = ctx.config.NETWORK_WEBHOOK_SECRET;
    if (!secret) throw secretNotConfigured('network');
    const body = rawBytes(req);
    const verification = verifyWithEither(secret, ctx.config.NETWORK_WEBHOOK_SECRET_PREVIOUS, (s) =>
      verifyNetworkSignature(body, req.headers, s, new Date()),
    );
    if (!verification.ok) throw verification.rejection;

    // Shape problems are answered (400) before the delivery is claimed: nothing is written.
    const batch = { ...readNetworkDelivery(body), proofToken: proofTokenOf(req.query) };
    const recorded = await writer.submit({
      delivery: {
        provider: 'network',
        // The signed timestamp is in the header, so a redelivery carries the same bytes.
        deliveryId: bodyDigestId(body),
        eventType: batch.eventType,
        rawBody: body,
        contentType: req.get('content-type'),
        verification: 'verified',
        headers: req.headers,
      },
      batch,
    });
    if ('result' in recorded) {
      res.json({ ok: true, ...recorded.result.counts });
      return;
    }
    const nothing = { ok: true, inserted: 0, unmatched: 0, unsupported: 0 };
    res.json(
      recorded.duplicate
        ? { ...nothing, duplicate: true }
        : { ...nothing, stored: false, reason: recorded.notStored },
    );
  });

  return router;
}

/**
 * Re-processes a stored network delivery that failed after its signature verified: the same
 * events read from the same bytes, routed by their account ids to today's proven claims, under
 * the same ledger key, on its own rather than in a group. It proves no claim (a verification
 * URL's token is not part of the stored delivery), and writes only when every event it stores
 * is the asking tenant's (else NotRoutedToTenant, nothing written).
 */
export function replayNetworkDelivery(
  ctx: ReceiverContext,
  stored: StoredDelivery,
  tenantId: string,
) {
  const delivery = deliveryOf(stored, tenantId);
  const batch = readNetworkDelivery(delivery.rawBody);
  return recordDelivery(ctx.db, delivery, (scope) => handleNetworkBatch(scope, batch));
}

/** The events of a verified body; 400 when it is none of the accepted shapes. */
function readNetworkDelivery(body: Buffer): ClassifiedBatch {
  return classifyBatch(parseJsonBody(body));
}

interface NetworkDelivery {
  delivery: Delivery;
  batch: ClassifiedBatch;
}

/**
 * Concurrent deliveries are stored together (group commit): while groups are being written,
 * new deliveries wait and then go in one transaction, a few statements for all of them instead
 * of about ten each. A group is bounded by deliveries and by events, so one transaction stays
 * short; the first delivery after a quiet moment goes alone, at once.
 */
function networkWriter(ctx: ReceiverContext) {
  return new GroupCommit<NetworkDelivery, Recorded<NetworkOutcome>>(
    (items) =>
      recordDeliveries(
        ctx.db,
        items.map((item) => item.delivery),
        (scope, indexes) =>
          handleNetworkBatches(
            scope,
            indexes.map((i) => items[i].batch),
          ),
        (scope, index) => handleNetworkBatch(scope, items[index].batch),
      ),
    {
      inFlight: GROUPS_IN_FLIGHT,
      maxItems: 200,
      maxWeight: MAX_EVENTS_PER_GROUP,
      weightOf: (item) => Math.max(1, item.batch.activities.length),
    },
  );
}

/**
 * Two groups written at a time: everything arriving meanwhile forms the next one. Measured on
 * the 2-core VM, single deliveries at 50 connections (ratio to the bare verifier): 1 in flight
 * 0.27-0.30, 2 0.23-0.24, 3 0.20-0.23, 6 0.20 (the machine is CPU-bound: bigger groups win);
 * 500-event batches at 10 connections: 1 in flight 3,900 events/s, 2 5,000, 3 6,400-8,500
 * (a big group's JSON work then overlaps the previous group's writes). Two is the balance.
 */
const GROUPS_IN_FLIGHT = 2;
/** Events per group transaction at most: ten batches of the largest kind partners send. */
const MAX_EVENTS_PER_GROUP = 5000;
