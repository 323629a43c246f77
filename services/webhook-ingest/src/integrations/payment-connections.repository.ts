import type { PaymentProvider, Trx } from '@crm/shared/db';

export const SORTABLE = ['created_at', 'provider', 'name'] as const;
// The ciphertext column is never selected; a payment connection always has a secret.
export const COLUMNS = ['id', 'provider', 'name', 'created_at'] as const;

export function insertPaymentConnection(
  trx: Trx,
  tenantId: string,
  connection: { provider: PaymentProvider; name: string | null; webhookSecretCiphertext: string },
) {
  return trx
    .insertInto('payment_connections')
    .values({
      tenant_id: tenantId,
      provider: connection.provider,
      name: connection.name,
      webhook_secret_ciphertext: connection.webhookSecretCiphertext,
    })
    .returning([...COLUMNS])
    .executeTakeFirstOrThrow();
}
