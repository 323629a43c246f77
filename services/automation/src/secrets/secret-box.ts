import { randomBytes } from 'node:crypto';
import { createPurposeSecretBox, type SecretBox } from '@crm/shared/crypto';

export type { SecretBox };

/**
 * Workflow signing secrets: read back to sign every outbound request, so sealed, not hashed
 * (see @crm/shared/crypto), under a key of their own.
 */
/** `keyMaterial`: one key, or a key ring with the current key first (see createPurposeSecretBox). */
export function createSecretBox(keyMaterial: string | readonly string[]): SecretBox {
  return createPurposeSecretBox(keyMaterial, {
    salt: 'crm-automation',
    info: 'workflow-signing-secrets v1',
  });
}

/** A new Standard Webhooks secret: `whsec_` + 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
