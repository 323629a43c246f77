import { randomBytes } from 'node:crypto';

/**
 * A new Standard Webhooks secret: `whsec_` + 32 random bytes in base64. Workflow signing secrets
 * are read back to sign every outbound request, so they are stored sealed, not hashed
 * (WORKFLOW_SIGNING_SECRETS in @crm/shared/crypto).
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
