import type { IncomingHttpHeaders } from 'node:http';
import { withSystemScope, type InboundVerification } from '@crm/shared/db';
import { errors, rawBody, requestLogger } from '@crm/shared/http';
import { Router, type Request } from 'express';
import {
  bodyDigestId,
  deliveryIdFrom,
  parseJsonBody,
  headerValue,
  secretUnavailable,
  type Verification,
  rawBytes,
} from '@crm/shared/inbound';
import { receivedBody } from '../../receivers/received-body';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { recordDelivery } from '../../ledger/record-delivery';
import {
  findStorefrontConnection,
  type StoredConnection,
} from '../../tenancy/cross-tenant-lookups';
import { handleStorefrontEvent } from './handle';
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
 * A storefront receiver: find the connection by its shop header (404 if none), verify the
 * raw body with the connection's stored secret (or accept it unverified where none is
 * stored, as SPEC.md allows), read the topic's records (400 if malformed), then claim the
 * delivery in the ledger and store them in the connection's tenant, all before answering.
 */
export function storefrontReceiver(ctx: ReceiverContext, scheme: StorefrontScheme): Router {
  const router = Router();
  router.post(scheme.path, rawBody(ctx.bodyLimitBytes), async (req, res) => {
    const body = rawBytes(req);
    if (scheme.isPing?.(body, req.headers)) {
      res.status(200).json({ received: true });
      return;
    }
    const connection = await findConnection(ctx, scheme, req.headers);
    const verification = verifyDelivery(ctx, scheme, connection, body, req);
    const topic = headerValue(req.headers, scheme.headers.topic)?.trim();
    const event = readEvent(scheme, topic, body);
    const recorded = await recordDelivery(
      ctx.db,
      {
        provider: scheme.platform,
        // Record ids are the shop's, not ours: two shops may send the same one.
        deliveryId: `${connection.connectionId}:${deliveryKeyOf(event, body)}`,
        eventType: topic?.slice(0, 200) ?? null,
        rawBody: body,
        contentType: contentTypeOf(req),
        verification,
      },
      (scope) => handleStorefrontEvent(scope, { ...connection, platform: scheme.platform }, event),
    );
    res.status(200).json(receivedBody(recorded));
  });
  return router;
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

async function findConnection(
  ctx: ReceiverContext,
  scheme: StorefrontScheme,
  headers: IncomingHttpHeaders,
): Promise<StoredConnection> {
  const shop = headerValue(headers, scheme.headers.shop);
  const identifier = shop === undefined ? '' : scheme.normaliseShop(shop);
  const connection =
    identifier === ''
      ? undefined
      : await withSystemScope(ctx.db, (trx) =>
          findStorefrontConnection(trx, scheme.platform, identifier),
        );
  if (!connection) {
    throw errors.notFound(`No storefront connection matches the ${scheme.headers.shop} header`);
  }
  return connection;
}

function verifyDelivery(
  ctx: ReceiverContext,
  scheme: StorefrontScheme,
  connection: StoredConnection,
  body: Buffer,
  req: Request,
): InboundVerification {
  const headers = req.headers;
  const logger = requestLogger(ctx.logger, req);
  const where = {
    receiver: scheme.platform,
    connectionId: connection.connectionId,
    tenantId: connection.tenantId,
  };
  if (connection.secretCiphertext === null) {
    // SPEC.md (Authentication 4): accepted unverified; said loudly, once per delivery.
    logger.warn(
      where,
      'Storefront delivery accepted unverified: the connection has no webhook secret',
    );
    return 'unverified';
  }
  const secret = ctx.secrets.open(connection.secretCiphertext);
  if (secret === undefined) {
    // Sealed under another key (CONNECTION_SECRETS_KEY changed): our fault, and accepting
    // unverified would drop the protection the shop asked for.
    logger.error(where, 'Storefront connection secret cannot be opened with the current key');
    throw secretUnavailable();
  }
  const verified = scheme.verify(body, headers, secret);
  if (!verified.ok) throw verified.rejection;
  return 'verified';
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
