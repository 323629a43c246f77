import type { IncomingHttpHeaders } from 'node:http';
import { sha256Hex } from '@crm/shared/crypto';
import { secretUnavailable, type Verification } from '@crm/shared/inbound';
import type { Logger } from 'pino';
import type { SecretBox } from '@crm/shared/crypto';
import type { StorefrontClaim } from '../../tenancy/cross-tenant-lookups';

/** Where a storefront delivery goes, decided before anything is written. */
export type StorefrontRoute =
  | { kind: 'connection'; connection: StorefrontClaim; verification: 'verified' | 'unverified' }
  | { kind: 'held'; reason: string };

interface RoutingInput {
  claims: StorefrontClaim[];
  body: Buffer;
  headers: IncomingHttpHeaders;
  verify(rawBody: Buffer, headers: IncomingHttpHeaders, secret: string): Verification;
  secrets: SecretBox;
  logger: Logger;
}

/**
 * Which tenant's connection to a shop a delivery belongs to (docs/integrations.md, Proving an
 * identifier). Several tenants may connect one shop; the shop header names the shop, and only
 * a connection's own secret can say the delivery is for it:
 *
 * 1. A connection whose secret verifies the delivery gets it, verified (when several do, the
 *    earliest proven, then the oldest: `claims` comes in that order).
 * 2. Else the shop's only connection, when it has no secret, gets it unverified (specified for
 *    a connection without a secret): nobody else claims the shop.
 * 3. Else, when every connection has a secret, the signature is wrong for all of them: the
 *    first one's rejection (401), nothing written.
 * 4. Else (a connection without a secret among several, none verifying): held, stored in no
 *    tenant. So a connection without a secret never takes a delivery from one with a secret,
 *    and one registered beside another tenant's receives nothing until it adds its secret.
 *
 * Throws secretUnavailable (503) when a stored secret no longer opens: deciding without it
 * could hand its owner's delivery to another claim.
 */
export function routeStorefrontDelivery(input: RoutingInput): StorefrontRoute {
  const { claims, body, headers } = input;
  let firstRejection: Verification | undefined;
  for (const claim of claims) {
    if (claim.secretCiphertext === null) continue;
    const secret = input.secrets.open(claim.secretCiphertext);
    if (secret === undefined) {
      // Sealed under another key (CONNECTION_SECRETS_KEY changed): our fault.
      input.logger.error(
        { connectionId: claim.connectionId, tenantId: claim.tenantId },
        'Storefront connection secret cannot be opened with the current key',
      );
      throw secretUnavailable();
    }
    const verified = input.verify(body, headers, secret);
    if (verified.ok) return { kind: 'connection', connection: claim, verification: 'verified' };
    firstRejection ??= verified;
  }
  const withoutSecret = claims.filter((claim) => claim.secretCiphertext === null);
  if (claims.length === 1 && withoutSecret.length === 1) {
    return { kind: 'connection', connection: claims[0], verification: 'unverified' };
  }
  if (withoutSecret.length === 0 && firstRejection && !firstRejection.ok) {
    throw firstRejection.rejection;
  }
  return {
    kind: 'held',
    reason: 'held: no connection of the shop verified the delivery, and it has several',
  };
}

/** The ledger key prefix of a held delivery: the shop, digested (identifiers run to 500 chars). */
export function heldKeyPrefix(shopIdentifier: string): string {
  return `held:${sha256Hex(shopIdentifier).slice(0, 32)}`;
}
