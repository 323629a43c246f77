import type { Trx } from '@crm/shared/db';
import type { MessagingAccountInput } from './messaging-accounts.schema';

export const COLUMNS = [
  'id',
  'phone_number_id',
  'display_phone_number',
  'name',
  'created_at',
] as const;
export const SORTABLE = ['created_at', 'phone_number_id', 'name'] as const;

/** The account stored, or undefined when its phone_number_id is already connected (any tenant). */
export function insertMessagingAccount(trx: Trx, tenantId: string, input: MessagingAccountInput) {
  return trx
    .insertInto('messaging_accounts')
    .values({
      tenant_id: tenantId,
      phone_number_id: input.phone_number_id,
      display_phone_number: input.display_phone_number ?? null,
      name: input.name ?? null,
    })
    .onConflict((oc) => oc.column('phone_number_id').doNothing())
    .returning([...COLUMNS])
    .executeTakeFirst();
}
