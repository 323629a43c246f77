import { createPurposeSecretBox, secretKeyRing, type SecretBox } from '@crm/shared/crypto';
import type { IdentitySecrets } from '@crm/shared/identity';
import type { Config } from '../config';

export type { SecretBox };

/** Storefront and payment connection secrets, under a key of their own (see @crm/shared/crypto). */
/** `keyMaterial`: one key, or a key ring with the current key first (see createPurposeSecretBox). */
export function createSecretBox(keyMaterial: string | readonly string[]): SecretBox {
  return createPurposeSecretBox(keyMaterial, {
    salt: 'crm-webhook-ingest',
    info: 'connection-secrets v1',
  });
}

/** The service's box: CONNECTION_SECRETS_KEY (or the internal token secret) and its previous value. */
export function connectionSecretBox(
  config: Pick<Config, 'CONNECTION_SECRETS_KEY' | 'CONNECTION_SECRETS_KEY_PREVIOUS'>,
  secrets: IdentitySecrets,
): SecretBox {
  return createSecretBox(
    secretKeyRing({
      key: config.CONNECTION_SECRETS_KEY,
      previousKey: config.CONNECTION_SECRETS_KEY_PREVIOUS,
      ...secrets,
    }),
  );
}
