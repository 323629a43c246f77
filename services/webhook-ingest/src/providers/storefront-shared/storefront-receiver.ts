import type { IncomingHttpHeaders } from 'node:http';
import { withSystemScope } from '@crm/shared/db';
import { errors, rawBody, requestLogger } from '@crm/shared/http';
import { Router, type Request } from 'express';
import {
  bodyDigestId,
  deliveryIdFrom,
  parseJsonBody,
  headerValue,
  type Verification,
  rawBytes,
} from '@crm/shared/inbound';
import { receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { recordDelivery } from '../../ledger/record-delivery';
import { deliveryOf, type StoredDelivery } from '../../ledger/stored-delivery';
import {
  findStorefrontClaims,
  markStorefrontProven,
  type StorefrontClaim,
} from '../../tenancy/cross-tenant-lookups';
import { handleStorefrontEvent } from './storefront-delivery';
import type { StorefrontConnectionRef } from './store-order';
import { heldKeyPrefix, routeStorefrontDelivery } from './storefront-routing';
import type {
  ContactInput,
  OrderInput,
  RecordVersion,
  StorefrontEvent,
  StorefrontPlatform,
  TopicKind,
} from './storefront-event';

/** What differs between the storefront platforms; everything else is this file's flow. */
export interface StorefrontScheme {
  platform: StorefrontPlatform;
  path: string;
  /** The platform also sends a webhook/delivery id header; unsigned, so it keys nothing. */
  headers: { shop: string; topic: string };
  /** The connection's `shop_identifier` as the shop header names it. */
  normaliseShop(value: string): string;
  verify(rawBody: Buffer, headers: IncomingHttpHeaders, secret: string): Verification;
  topics: ReadonlyMap<string, TopicKind>;
  readOrder(payload: unknown): OrderInput;
  /** Null when the customer has no email to key a contact by. */
  readCustomer(payload: unknown): ContactInput | null;
  /** The order's or customer's id and last-update time, when the body has both. */
  readVersion(payload: unknown): RecordVersion | null;
  /** A request answered 200 before anything else, storing nothing (storefront B's ping). */
  isPing?(rawBody: Buffer, headers: IncomingHttpHeaders): boolean;
}

/**
 * A storefront receiver: find the connections to the shop its shop header names (404 if
 * none), decide by their secrets which one the raw body belongs to (storefront-routing.ts:
 * verified, unverified where the shop's only connection has no secret, as specified, or held
 * for no tenant), read the topic's records (400 if malformed), then claim the delivery in the
 * ledger and store them in that connection's tenant, all before answering.
 */
export function storefrontReceiver(ctx: ReceiverContext, scheme: StorefrontScheme): Router {
  const router = Router();
  router.post(scheme.path, rawBody(ctx.bodyLimitBytes), async (req, res) => {
    const body = rawBytes(req);
    if (scheme.isPing?.(body, req.headers)) {
      res.status(200).json({ received: true });
      return;
    }
    const { shop, claims } = await findClaims(ctx, scheme, req.headers);
    const route = routeStorefrontDelivery({
      claims,
      body,
      headers: req.headers,
      verify: scheme.verify,
      secrets: ctx.secrets,
      logger: requestLogger(ctx.logger, req),
    });
    if (route.kind === 'connection' && route.verification === 'unverified') {
      // Specified: accepted unverified; said loudly, once per delivery.
      requestLogger(ctx.logger, req).warn(
        {
          receiver: scheme.platform,
          connectionId: route.connection.connectionId,
          tenantId: route.connection.tenantId,
        },
        'Storefront delivery accepted unverified: the connection has no webhook secret',
      );
    }
    const topic = headerValue(req.headers, scheme.headers.topic)?.trim();
    const event = readEvent(scheme, topic, body);
    const recorded = await recordDelivery(
      ctx.db,
      {
        provider: scheme.platform,
        // Record ids are the shop's, not ours: two shops may send the same one.
        deliveryId: `${route.kind === 'held' ? heldKeyPrefix(shop) : route.connection.connectionId}:${deliveryKeyOf(event, body)}`,
        eventType: topic?.slice(0, 200) ?? null,
        rawBody: body,
        contentType: contentTypeOf(req),
        verification: route.kind === 'held' ? 'unverified' : route.verification,
        headers: req.headers,
        tenantId: route.kind === 'held' ? undefined : route.connection.tenantId,
      },
      async (scope) => {
        if (route.kind === 'held') return { outcome: 'held', detail: route.reason };
        const { connection } = route;
        if (route.verification === 'verified') {
          await markStorefrontProven(scope.trx, connection.connectionId);
        }
        return handleStorefrontEvent(scope, { ...connection, platform: scheme.platform }, event);
      },
    );
    res.status(200).json(receivedBody(recorded));
  });
  return router;
}

/**
 * Re-processes a stored storefront delivery that failed after its connection's secret verified
 * it: the same records read from the same bytes and topic, stored in the same connection's
 * tenant, under the same ledger key (claimed again only while it is still failed).
 */
export function replayStorefrontDelivery(
  ctx: ReceiverContext,
  scheme: StorefrontScheme,
  stored: StoredDelivery,
  connection: Omit<StorefrontConnectionRef, 'platform'>,
) {
  const delivery = deliveryOf(stored, connection.tenantId);
  const event = readEvent(scheme, stored.event_type ?? undefined, delivery.rawBody);
  return recordDelivery(ctx.db, delivery, async (scope) => {
    await markStorefrontProven(scope.trx, connection.connectionId);
    return handleStorefrontEvent(scope, { ...connection, platform: scheme.platform }, event);
  });
}

/**
 * The delivery's ledger key, from the body only: both platforms sign the body and not their
 * webhook/delivery id headers, and a connection without a secret has nothing signed at all, so
 * a header must never decide whether a delivery is new.
 *  - An order or customer topic: `<kind>:<record id>@<update time>` (a platform's retries, and
 *    its other topics about the same version, are then one delivery), else
 *    `<kind>:sha256:<body digest>`.
 *  - Any other topic (stored nowhere): the body digest, so replaying one body under made-up
 *    topics adds no ledger rows; prefixed keys above keep a stored topic from ever colliding
 *    with it.
 */
function deliveryKeyOf(event: StorefrontEvent, body: Buffer): string {
  if (event.kind === 'ignored') return bodyDigestId(body);
  const { version } = event;
  return version
    ? deliveryIdFrom(`${event.kind}:${version.id}@${version.updatedAt}`, body)
    : `${event.kind}:${bodyDigestId(body)}`;
}

/** Every tenant's connection to the shop the shop header names; 404 when there is none. */
async function findClaims(
  ctx: ReceiverContext,
  scheme: StorefrontScheme,
  headers: IncomingHttpHeaders,
): Promise<{ shop: string; claims: StorefrontClaim[] }> {
  const header = headerValue(headers, scheme.headers.shop);
  const shop = header === undefined ? '' : scheme.normaliseShop(header);
  const claims =
    shop === ''
      ? []
      : await withSystemScope(ctx.db, (trx) => findStorefrontClaims(trx, scheme.platform, shop));
  if (claims.length === 0) {
    throw errors.notFound(`No storefront connection matches the ${scheme.headers.shop} header`);
  }
  return { shop, claims };
}

function readEvent(
  scheme: StorefrontScheme,
  topic: string | undefined,
  body: Buffer,
): StorefrontEvent {
  const kind = topic === undefined ? undefined : scheme.topics.get(topic);
  if (kind === undefined) {
    return {
      kind: 'ignored',
      reason: topic ? `topic ${topic.slice(0, 100)} not handled` : 'no topic',
    };
  }
  const payload = parseJsonBody(body);
  const version = scheme.readVersion(payload);
  return kind === 'order'
    ? { kind, order: scheme.readOrder(payload), version }
    : { kind, contact: scheme.readCustomer(payload), version };
}

function contentTypeOf(req: Request): string | undefined {
  return headerValue(req.headers, 'content-type')?.slice(0, 200);
}
