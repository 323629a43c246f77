/**
 * webhook-ingest's cross-tenant reads and writes of identifier claims (docs/integrations.md,
 * Proving an identifier), beside the lookups of cross-tenant-lookups.ts and under the same
 * rule: each takes a transaction in the system scope and touches only what it names. Their
 * SQL is in identifier-proofs.repository.ts; what proving a claim means is here.
 *
 * A messaging number, network account or telephony number is signed for with one
 * platform-wide secret, so a verified delivery proves the provider sent it, never which
 * tenant owns the identifier it names. Any number of tenants may claim one; only the proven
 * claim is routed (cross-tenant-lookups.ts reads proven claims only), and a delivery that
 * names an identifier claimed but not proven is held.
 */
import type { Trx } from '@crm/shared/db';
import {
  lockClaimByToken,
  makeClaimTheProvenOne,
  type ClaimTable,
} from './identifier-proofs.repository';

/** A proof token as the claims table generates it: 64 lower-case hex digits. */
const PROOF_TOKEN = /^[0-9a-f]{64}$/;

/**
 * The proof token a receiver URL carries (`?claim=<token>`), or undefined. Anything else in
 * that parameter (repeated, malformed) proves nothing and is otherwise ignored: the delivery
 * is still the provider's, and is routed or held as if the URL had no token.
 */
export function proofTokenOf(query: Record<string, unknown>): string | undefined {
  const token = query.claim;
  return typeof token === 'string' && PROOF_TOKEN.test(token) ? token : undefined;
}

/**
 * Proves the claim `proofToken` names, when it claims one of `identifiers` (what a verified
 * delivery, sent by the provider to that claim's verification URL, is about). The claim
 * becomes the one routed claim of its identifier: a claim proven before, in any tenant, is
 * displaced, since only whoever controls the identifier at the provider now can point its
 * deliveries at a verification URL (a number changes hands this way). Returns the identifier
 * proven, or undefined when the token names no claim on these identifiers.
 *
 * The token is looked up by equality, not compared in constant time: it is not a secret (a
 * token alone proves nothing without a delivery the provider signed for the identifier).
 */
export async function proveClaim(
  trx: Trx,
  table: ClaimTable,
  identifiers: string[],
  proofToken: string,
): Promise<string | undefined> {
  if (identifiers.length === 0) return undefined;
  const claim = await lockClaimByToken(trx, table, identifiers, proofToken);
  if (!claim) return undefined;
  if (claim.proven) return claim.identifier;
  await makeClaimTheProvenOne(trx, table, claim);
  return claim.identifier;
}
