import type { IncomingHttpHeaders } from 'node:http';
import { withSystemScope, type InboundVerification } from '@crm/shared/db';
import { errors, rawBody } from '@crm/shared/http';
import { Router, type Request } from 'express';
import { deliveryIdFrom } from '../../receivers/delivery-id';
import { parseJsonBody } from '../../receivers/parse-json';
import type { ReceiverContext } from '../../receivers/receiver-context';
import { headerValue, secretUnavailable, type Verification } from '../../receivers/verification';
import { recordDelivery } from '../../ledger/record-delivery';
import {
  findStorefrontConnection,
  type StoredConnection,
} from '../../tenancy/cross-tenant-lookups';
import { handleStorefrontEvent } from './handle-event';
import type {
  ContactInput,
  OrderInput,
  StorefrontEvent,
  StorefrontPlatform,
  TopicKind,
} from './storefront-event';
import { rawBytes } from '../../receivers/raw-bytes';

/** What differs between the storefront platforms; everything else is this file's flow. */
export interface StorefrontScheme {
  platform: StorefrontPlatform;
  path: string;
  headers: { shop: string; topic: string; deliveryId: string };
  /** The connection's `shop_identifier` as the shop header names it. */
  normaliseShop(value: string): string;
  verify(rawBody: Buffer, headers: IncomingHttpHeaders, secret: string): Verification;
  topics: ReadonlyMap<string, TopicKind>;
  readOrder(payload: unknown): OrderInput;
  /** Null when the customer has no email to key a contact by. */
  readCustomer(payload: unknown): ContactInput | null;
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
    const verification = verifyDelivery(ctx, scheme, connection, body, req.headers);
    const topic = headerValue(req.headers, scheme.headers.topic)?.trim();
    const event = readEvent(scheme, topic, body);
    const deliveryId = deliveryIdFrom(headerValue(req.headers, scheme.headers.deliveryId), body);
    const recorded = await recordDelivery(
      ctx.db,
      {
        provider: scheme.platform,
        // Webhook ids are the platform's, not ours: two shops may send the same one.
        deliveryId: `${connection.connectionId}:${deliveryId}`,
        eventType: topic?.slice(0, 200) ?? null,
        rawBody: body,
        contentType: contentTypeOf(req),
        verification,
      },
      (scope) => handleStorefrontEvent(scope, { ...connection, platform: scheme.platform }, event),
    );
    res
      .status(200)
      .json(recorded.duplicate ? { received: true, duplicate: true } : { received: true });
  });
  return router;
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
  headers: IncomingHttpHeaders,
): InboundVerification {
  const where = {
    receiver: scheme.platform,
    connectionId: connection.connectionId,
    tenantId: connection.tenantId,
  };
  if (connection.secretCiphertext === null) {
    // SPEC.md (Authentication 4): accepted unverified; said loudly, once per delivery.
    ctx.logger.warn(
      where,
      'Storefront delivery accepted unverified: the connection has no webhook secret',
    );
    return 'unverified';
  }
  const secret = ctx.secrets.open(connection.secretCiphertext);
  if (secret === undefined) {
    // Sealed under another key (CONNECTION_SECRETS_KEY changed): our fault, and accepting
    // unverified would drop the protection the shop asked for.
    ctx.logger.error(where, 'Storefront connection secret cannot be opened with the current key');
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
  return kind === 'order'
    ? { kind, order: scheme.readOrder(payload) }
    : { kind, contact: scheme.readCustomer(payload) };
}

function contentTypeOf(req: Request): string | undefined {
  return headerValue(req.headers, 'content-type')?.slice(0, 200);
}
