import type { Trx } from '@crm/shared/db';
import type { NetworkAccountInput } from './network-accounts.schema';

export const COLUMNS = [
  'id',
  'external_account_id',
  'name',
  'proven_at',
  'proof_token',
  'created_at',
] as const;

export const SORTABLE = ['created_at', 'external_account_id', 'name'] as const;

/** The account stored (a claim, pending until proven), or undefined when this tenant already has it. */
export function insertNetworkAccount(trx: Trx, tenantId: string, input: NetworkAccountInput) {
  return trx
    .insertInto('network_accounts')
    .values({
      tenant_id: tenantId,
      external_account_id: input.external_account_id,
      name: input.name ?? null,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'external_account_id']).doNothing())
    .returning([...COLUMNS])
    .executeTakeFirst();
}
