import type { Trx } from '@crm/shared/db';
import type { TelephonyNumberInput } from './telephony-numbers.schema';

export const COLUMNS = [
  'id',
  'phone_number',
  'name',
  'proven_at',
  'proof_token',
  'created_at',
] as const;

export const SORTABLE = ['created_at', 'phone_number', 'name'] as const;

/** The number stored (a claim, pending until proven), or undefined when this tenant already has it. */
export function insertTelephonyNumber(trx: Trx, tenantId: string, input: TelephonyNumberInput) {
  return trx
    .insertInto('telephony_numbers')
    .values({
      tenant_id: tenantId,
      phone_number: input.phone_number,
      name: input.name ?? null,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'phone_number']).doNothing())
    .returning([...COLUMNS])
    .executeTakeFirst();
}
