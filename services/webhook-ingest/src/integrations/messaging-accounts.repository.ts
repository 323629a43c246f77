import type { Trx } from '@crm/shared/db';
import type { MessagingAccountInput } from './messaging-accounts.schema';

export const COLUMNS = [
  'id',
  'phone_number_id',
  'display_phone_number',
  'name',
  'proven_at',
  'proof_token',
  'created_at',
] as const;
export const SORTABLE = ['created_at', 'phone_number_id', 'name'] as const;

/** The account stored (a claim, pending until proven), or undefined when this tenant already has it. */
export function insertMessagingAccount(trx: Trx, tenantId: string, input: MessagingAccountInput) {
  return trx
    .insertInto('messaging_accounts')
    .values({
      tenant_id: tenantId,
      phone_number_id: input.phone_number_id,
      display_phone_number: input.display_phone_number ?? null,
      name: input.name ?? null,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'phone_number_id']).doNothing())
    .returning([...COLUMNS])
    .executeTakeFirst();
}
