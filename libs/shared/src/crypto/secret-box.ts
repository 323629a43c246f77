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
  /** Sealed under the current key. */
  seal(plaintext: string): string;
  /** The plaintext, or undefined for anything that opens with none of the box's keys. */
  open(sealed: string): string | undefined;
  /**
   * The same secret sealed anew under the current key when `sealed` opens only with a previous
   * one; undefined when it is already current or opens with no key (nothing to re-seal).
   */
  reseal(sealed: string): string | undefined;
}

const VERSION = 'v1';

/**
 * A box whose keys are derived (HKDF-SHA256) from `keyMaterial` for one purpose, so each kind of
 * secret has a key of its own even where the key material is shared. Changing a purpose's
 * salt or info makes every secret sealed under it unreadable.
 *
 * `keyMaterial` may be a key ring, current key first: the box seals under the first and opens
 * with any, so a key can be rotated without downtime (set the new key with the old one as
 * previous, re-seal what is stored, then drop the old one).
 */
export function createPurposeSecretBox(
  keyMaterial: string | readonly string[],
  purpose: { salt: string; info: string },
): SecretBox {
  const keys = (typeof keyMaterial === 'string' ? [keyMaterial] : keyMaterial).map((material) =>
    Buffer.from(hkdfSync('sha256', material, purpose.salt, purpose.info, 32)),
  );
  if (keys.length === 0) throw new Error('a secret box needs at least one key');
  const [current] = keys;

  function seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', current, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext and the index of the key that opened it. */
  function openWithIndex(sealed: string): { plaintext: string; keyIndex: number } | undefined {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) return undefined;
    for (const [keyIndex, key] of keys.entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        const plaintext = Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
        return { plaintext, keyIndex };
      } catch {
        // not sealed under this key: try the next one
      }
    }
    return undefined;
  }

  return {
    seal,
    open: (sealed) => openWithIndex(sealed)?.plaintext,
    reseal(sealed) {
      const opened = openWithIndex(sealed);
      return opened && opened.keyIndex > 0 ? seal(opened.plaintext) : undefined;
    },
  };
}

/**
 * The key ring of a purpose's box: its own key (`key`, e.g. CONNECTION_SECRETS_KEY) when set,
 * else the internal token secret it is derived from; each followed by its previous value while
 * a rotation is under way. Going from the derived key to a key of its own is a rotation too:
 * the old internal token secret is then given as the purpose's previous key.
 */
export function secretKeyRing(keys: {
  key?: string;
  previousKey?: string;
  internalTokenSecret: string;
  previousInternalTokenSecret?: string;
}): string[] {
  const [current, previous] = keys.key
    ? [keys.key, keys.previousKey]
    : [keys.internalTokenSecret, keys.previousKey ?? keys.previousInternalTokenSecret];
  return previous && previous !== current ? [current, previous] : [current];
}

/**
 * What a box seals: the config name of the key pair its keys come from (`<keyName>` and
 * `<keyName>_PREVIOUS`, declared with rotatableKeyPair) and the HKDF salt and info that give it
 * keys of its own. Changing the salt or info makes every secret sealed for it unreadable.
 */
export interface SecretBoxPurpose<N extends string = string> {
  keyName: N;
  salt: string;
  info: string;
}

/*
 * Every purpose is listed here, next to the box, so no two can come to share a derivation and a
 * service cannot wire its box differently from another.
 */

/** webhook-ingest's storefront and payment connection secrets. */
export const CONNECTION_SECRETS = {
  keyName: 'CONNECTION_SECRETS_KEY',
  salt: 'crm-webhook-ingest',
  info: 'connection-secrets v1',
} as const satisfies SecretBoxPurpose;

/** automation's workflow signing secrets: read back to sign every outbound request. */
export const WORKFLOW_SIGNING_SECRETS = {
  keyName: 'AUTOMATION_SECRETS_KEY',
  salt: 'crm-automation',
  info: 'workflow-signing-secrets v1',
} as const satisfies SecretBoxPurpose;

/**
 * A service's box for `purpose`, from its config: the purpose's own key pair when set, else the
 * internal token secret (see secretKeyRing).
 */
export function configuredSecretBox<N extends string>(
  purpose: SecretBoxPurpose<N>,
  config: { [K in N | `${N}_PREVIOUS`]?: string },
  secrets: { internalTokenSecret: string; previousInternalTokenSecret?: string },
): SecretBox {
  const keys = config as Partial<Record<string, string>>;
  return createPurposeSecretBox(
    secretKeyRing({
      key: keys[purpose.keyName],
      previousKey: keys[`${purpose.keyName}_PREVIOUS`],
      ...secrets,
    }),
    purpose,
  );
}
