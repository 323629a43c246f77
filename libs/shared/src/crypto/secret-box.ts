import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets that must be read back (webhook-ingest's connection secrets, automation's
 * workflow signing secrets): they are used to compute or check an HMAC, so unlike passwords
 * and keys they cannot be stored as a hash. AES-256-GCM under a key held outside the database
 * is the next best thing: a database dump alone reveals no secret, and a tampered ciphertext
 * fails to open rather than decrypting to something else.
 *
 * Stored form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** The plaintext, or undefined for anything that does not open with this key. */
  open(sealed: string): string | undefined;
}

const VERSION = 'v1';

/**
 * A box whose key is derived (HKDF-SHA256) from `keyMaterial` for one purpose, so each kind of
 * secret has a key of its own even where the key material is shared. Changing a purpose's
 * salt or info makes every secret sealed under it unreadable.
 */
export function createPurposeSecretBox(
  keyMaterial: string,
  purpose: { salt: string; info: string },
): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', keyMaterial, purpose.salt, purpose.info, 32));
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
