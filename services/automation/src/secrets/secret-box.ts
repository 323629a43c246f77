import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts workflow signing secrets at rest. They must be read back to sign every outbound
 * request, so they cannot be stored as a hash; AES-256-GCM under a key held outside the
 * database (the same scheme as webhook-ingest's connection secrets, with its own derived key):
 * a database dump alone reveals no secret, and a tampered ciphertext fails to open.
 *
 * Stored form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** The plaintext, or undefined for anything that does not open with this key. */
  open(sealed: string): string | undefined;
}

const VERSION = 'v1';

export function createSecretBox(keyMaterial: string): SecretBox {
  const key = Buffer.from(
    hkdfSync('sha256', keyMaterial, 'crm-automation', 'workflow-signing-secrets v1', 32),
  );
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || ciphertext === undefined) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** A new Standard Webhooks secret: `whsec_` + 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
