import {
  configuredSecretBox,
  createPurposeSecretBox,
  CONNECTION_SECRETS,
} from '@crm/shared/crypto';

describe('the connection secrets box (secrets at rest)', () => {
  const box = createPurposeSecretBox(
    'a-key-of-at-least-thirty-two-characters!!',
    CONNECTION_SECRETS,
  );

  it('opens what it sealed, and the sealed form does not contain the secret', () => {
    const sealed = box.seal('whsec_super-secret-value');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('super-secret');
    expect(box.open(sealed)).toBe('whsec_super-secret-value');
  });

  it('seals the same secret differently each time (random IV)', () => {
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('does not open with another key, a tampered ciphertext, or something it did not seal', () => {
    const sealed = box.seal('whsec_value');
    expect(
      createPurposeSecretBox('another-key-of-at-least-thirty-two-chars', CONNECTION_SECRETS).open(
        sealed,
      ),
    ).toBeUndefined();
    const [v, iv, tag, ct] = sealed.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(box.open([v, iv, tag, flipped.toString('base64url')].join('.'))).toBeUndefined();
    expect(box.open('whsec_value')).toBeUndefined();
    expect(box.open('v2.a.b.c')).toBeUndefined();
  });
});

describe('a key ring (CONNECTION_SECRETS_KEY rotated)', () => {
  const OLD = 'the-old-connection-secrets-key-0123456789';
  const NEW = 'the-new-connection-secrets-key-0123456789';
  const rotating = createPurposeSecretBox([NEW, OLD], CONNECTION_SECRETS);

  it('opens what the previous key sealed, and seals under the current key only', () => {
    const sealedBefore = createPurposeSecretBox(OLD, CONNECTION_SECRETS).seal('whsec_before');
    expect(rotating.open(sealedBefore)).toBe('whsec_before');
    const sealedNow = rotating.seal('whsec_now');
    expect(createPurposeSecretBox(NEW, CONNECTION_SECRETS).open(sealedNow)).toBe('whsec_now');
    expect(createPurposeSecretBox(OLD, CONNECTION_SECRETS).open(sealedNow)).toBeUndefined();
  });

  it('re-seals only what opens with a previous key, into something the new key alone opens', () => {
    const resealed = rotating.reseal(
      createPurposeSecretBox(OLD, CONNECTION_SECRETS).seal('whsec_before'),
    );
    expect(resealed).toBeDefined();
    expect(createPurposeSecretBox(NEW, CONNECTION_SECRETS).open(resealed as string)).toBe(
      'whsec_before',
    );
    expect(rotating.reseal(rotating.seal('whsec_now'))).toBeUndefined();
    expect(
      rotating.reseal(
        createPurposeSecretBox('a-third-key-0123456789012345678', CONNECTION_SECRETS).seal('x'),
      ),
    ).toBe(undefined);
  });
});

describe('configuredSecretBox: which keys webhook-ingest holds', () => {
  const INTERNAL = 'internal-token-secret-0123456789abcdef';
  const PREVIOUS_INTERNAL = 'previous-internal-token-secret-01234567';
  const KEY = 'connection-secrets-key-0123456789abcdef';
  const sealedBy = (key: string) => createPurposeSecretBox(key, CONNECTION_SECRETS).seal('s');

  it('without a key of its own: the internal token secret, and its previous value while rotated', () => {
    const box = configuredSecretBox(
      CONNECTION_SECRETS,
      {},
      { internalTokenSecret: INTERNAL, previousInternalTokenSecret: PREVIOUS_INTERNAL },
    );
    expect(box.open(sealedBy(INTERNAL))).toBe('s');
    expect(box.open(sealedBy(PREVIOUS_INTERNAL))).toBe('s');
    expect(createPurposeSecretBox(INTERNAL, CONNECTION_SECRETS).open(box.seal('t'))).toBe('t');
  });

  it('with CONNECTION_SECRETS_KEY: that key and its previous value, not the internal secrets', () => {
    const box = configuredSecretBox(
      CONNECTION_SECRETS,
      { CONNECTION_SECRETS_KEY: KEY, CONNECTION_SECRETS_KEY_PREVIOUS: INTERNAL },
      {
        internalTokenSecret: 'a-new-internal-secret-0123456789abcd',
        previousInternalTokenSecret: PREVIOUS_INTERNAL,
      },
    );
    expect(createPurposeSecretBox(KEY, CONNECTION_SECRETS).open(box.seal('t'))).toBe('t');
    // Moving from the derived key to a key of its own: the old internal secret is the previous key.
    expect(box.open(sealedBy(INTERNAL))).toBe('s');
    expect(box.open(sealedBy(PREVIOUS_INTERNAL))).toBeUndefined();
  });
});
