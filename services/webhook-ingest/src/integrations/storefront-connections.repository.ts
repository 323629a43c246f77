import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';
import type { Platform } from './storefront-connections.schema';

export const SORTABLE = ['created_at', 'platform', 'shop_identifier', 'name'] as const;
// The ciphertext column is never selected: only whether there is one.
export const COLUMNS = [
  'id',
  'platform',
  'shop_identifier',
  'name',
  sql<boolean>`webhook_secret_ciphertext IS NOT NULL`.as('hasWebhookSecret'),
  'proven_at',
  'created_at',
] as const;

/** The connection stored, or undefined when this tenant already connected the shop. */
export function insertStorefrontConnection(
  trx: Trx,
  tenantId: string,
  connection: {
    platform: Platform;
    shop_identifier: string;
    name: string | null;
    webhookSecretCiphertext: string | null;
  },
) {
  return trx
    .insertInto('storefront_connections')
    .values({
      tenant_id: tenantId,
      platform: connection.platform,
      shop_identifier: connection.shop_identifier,
      name: connection.name,
      webhook_secret_ciphertext: connection.webhookSecretCiphertext,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'platform', 'shop_identifier']).doNothing())
    .returning([...COLUMNS])
    .executeTakeFirst();
}
