/**
 * How a claim on a provider identifier is shown to its own tenant (docs/integrations.md,
 * Proving an identifier). Only the claim's own columns decide what is shown, never whether
 * another tenant claims the same identifier.
 */
export type ClaimStatus = 'pending' | 'proven';

/**
 * A messaging number, network account or telephony number: `status` (proven once the provider
 * delivered the identifier's webhooks to `verificationUrl`) and that URL, the receiver's with
 * the claim's token. The token is not a secret (it proves nothing without a delivery the
 * provider signed for the identifier), so it is shown on every read.
 */
export function presentPlatformClaim(receiverUrl: string) {
  return <R extends { proven_at: Date | null; proof_token: string }>({
    proof_token,
    ...row
  }: R) => ({
    ...row,
    status: (row.proven_at ? 'proven' : 'pending') as ClaimStatus,
    verificationUrl: `${receiverUrl}?claim=${proof_token}`,
  });
}

/**
 * A storefront connection: `proven` once a delivery verified with its own secret arrived;
 * `pending` until then; `unverified` without a secret (never proven: it receives deliveries
 * only while no other connection to the shop exists).
 */
export function storefrontStatus(row: {
  proven_at: Date | null;
  hasWebhookSecret: boolean;
}): ClaimStatus | 'unverified' {
  if (row.proven_at) return 'proven';
  return row.hasWebhookSecret ? 'pending' : 'unverified';
}
