/**
 * webhook-ingest's cross-tenant reads and writes of identifier claims (docs/integrations.md,
 * Proving an identifier), beside the lookups of cross-tenant-lookups.ts and under the same
 * rule: each takes a transaction in the system scope and touches only what it names.
 *
 * A messaging number, network account or telephony number is signed for with one
 * platform-wide secret, so a verified delivery proves the provider sent it, never which
 * tenant owns the identifier it names. Any number of tenants may claim one; only the proven
 * claim is routed (cross-tenant-lookups.ts reads proven claims only), and a delivery that
 * names an identifier claimed but not proven is held.
 */
import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';

/** The claim tables of the platform-wide-secret providers and the identifier each holds. */
export const CLAIMED_IDENTIFIER = {
  messaging_accounts: 'phone_number_id',
  network_accounts: 'external_account_id',
  telephony_numbers: 'phone_number',
} as const;
export type ClaimTable = keyof typeof CLAIMED_IDENTIFIER;

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

/** The identifiers among `values` that some tenant claims, proven or not. */
export async function claimedIdentifiers(
  trx: Trx,
  table: ClaimTable,
  values: string[],
): Promise<Set<string>> {
  const wanted = [...new Set(values)];
  if (wanted.length === 0) return new Set();
  const column = sql.ref(CLAIMED_IDENTIFIER[table]);
  const { rows } = await sql<{ identifier: string }>`
    SELECT DISTINCT ${column} AS identifier FROM ${sql.table(table)}
     WHERE ${column} = ANY(${wanted})`.execute(trx);
  return new Set(rows.map((row) => row.identifier));
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
  const t = sql.table(table);
  const column = sql.ref(CLAIMED_IDENTIFIER[table]);
  const { rows } = await sql<{ id: string; identifier: string; proven: boolean }>`
    SELECT id, ${column} AS identifier, proven_at IS NOT NULL AS proven FROM ${t}
     WHERE proof_token = ${proofToken} AND ${column} = ANY(${[...new Set(identifiers)]})
       FOR UPDATE`.execute(trx);
  const claim = rows[0];
  if (!claim) return undefined;
  if (claim.proven) return claim.identifier;
  await sql`UPDATE ${t} SET proven_at = NULL
     WHERE ${column} = ${claim.identifier} AND proven_at IS NOT NULL`.execute(trx);
  await sql`UPDATE ${t} SET proven_at = now() WHERE id = ${claim.id}`.execute(trx);
  return claim.identifier;
}
