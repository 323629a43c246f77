import { createPurposeSecretBox, type SecretBox } from '@crm/shared/crypto';

export type { SecretBox };

/** Storefront and payment connection secrets, under a key of their own (see @crm/shared/crypto). */
export function createSecretBox(keyMaterial: string): SecretBox {
  return createPurposeSecretBox(keyMaterial, {
    salt: 'crm-webhook-ingest',
    info: 'connection-secrets v1',
  });
}
