/**
 * The SQL of identifier claims (identifier-proofs.ts says what proving one means). Each
 * function takes a transaction in the system scope, like cross-tenant-lookups.ts: a claim is
 * read and proven across tenants, and touches only the rows it names.
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
 * The claim with this proof token on one of `identifiers`, locked (FOR UPDATE) until the
 * transaction ends, so that two deliveries proving it do not interleave; undefined when none.
 */
export async function lockClaimByToken(
  trx: Trx,
  table: ClaimTable,
  identifiers: string[],
  proofToken: string,
): Promise<{ id: string; identifier: string; proven: boolean } | undefined> {
  const column = sql.ref(CLAIMED_IDENTIFIER[table]);
  const { rows } = await sql<{ id: string; identifier: string; proven: boolean }>`
    SELECT id, ${column} AS identifier, proven_at IS NOT NULL AS proven FROM ${sql.table(table)}
     WHERE proof_token = ${proofToken} AND ${column} = ANY(${[...new Set(identifiers)]})
       FOR UPDATE`.execute(trx);
  return rows[0];
}

/** Proves claim `id`, displacing the identifier's claim proven before, in any tenant. */
export async function makeClaimTheProvenOne(
  trx: Trx,
  table: ClaimTable,
  claim: { id: string; identifier: string },
): Promise<void> {
  const t = sql.table(table);
  const column = sql.ref(CLAIMED_IDENTIFIER[table]);
  await sql`UPDATE ${t} SET proven_at = NULL
     WHERE ${column} = ${claim.identifier} AND proven_at IS NOT NULL`.execute(trx);
  await sql`UPDATE ${t} SET proven_at = now() WHERE id = ${claim.id}`.execute(trx);
}
