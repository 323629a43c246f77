import { connectionSecretBox, createSecretBox } from '../src/secrets/secret-box';

describe('createSecretBox (connection secrets at rest)', () => {
  const box = createSecretBox('a-key-of-at-least-thirty-two-characters!!');

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
      createSecretBox('another-key-of-at-least-thirty-two-chars').open(sealed),
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
  const rotating = createSecretBox([NEW, OLD]);

  it('opens what the previous key sealed, and seals under the current key only', () => {
    const sealedBefore = createSecretBox(OLD).seal('whsec_before');
    expect(rotating.open(sealedBefore)).toBe('whsec_before');
    const sealedNow = rotating.seal('whsec_now');
    expect(createSecretBox(NEW).open(sealedNow)).toBe('whsec_now');
    expect(createSecretBox(OLD).open(sealedNow)).toBeUndefined();
  });

  it('re-seals only what opens with a previous key, into something the new key alone opens', () => {
    const resealed = rotating.reseal(createSecretBox(OLD).seal('whsec_before'));
    expect(resealed).toBeDefined();
    expect(createSecretBox(NEW).open(resealed as string)).toBe('whsec_before');
    expect(rotating.reseal(rotating.seal('whsec_now'))).toBeUndefined();
    expect(rotating.reseal(createSecretBox('a-third-key-0123456789012345678').seal('x'))).toBe(
      undefined,
    );
  });
});

describe('connectionSecretBox: which keys the service holds', () => {
  const INTERNAL = 'internal-token-secret-0123456789abcdef';
  const PREVIOUS_INTERNAL = 'previous-internal-token-secret-01234567';
  const KEY = 'connection-secrets-key-0123456789abcdef';
  const sealedBy = (key: string) => createSecretBox(key).seal('s');

  it('without a key of its own: the internal token secret, and its previous value while rotated', () => {
    const box = connectionSecretBox(
      {},
      { internalTokenSecret: INTERNAL, previousInternalTokenSecret: PREVIOUS_INTERNAL },
    );
    expect(box.open(sealedBy(INTERNAL))).toBe('s');
    expect(box.open(sealedBy(PREVIOUS_INTERNAL))).toBe('s');
    expect(createSecretBox(INTERNAL).open(box.seal('t'))).toBe('t');
  });

  it('with CONNECTION_SECRETS_KEY: that key and its previous value, not the internal secrets', () => {
    const box = connectionSecretBox(
      { CONNECTION_SECRETS_KEY: KEY, CONNECTION_SECRETS_KEY_PREVIOUS: INTERNAL },
      {
        internalTokenSecret: 'a-new-internal-secret-0123456789abcd',
        previousInternalTokenSecret: PREVIOUS_INTERNAL,
      },
    );
    expect(createSecretBox(KEY).open(box.seal('t'))).toBe('t');
    // Moving from the derived key to a key of its own: the old internal secret is the previous key.
    expect(box.open(sealedBy(INTERNAL))).toBe('s');
    expect(box.open(sealedBy(PREVIOUS_INTERNAL))).toBeUndefined();
  });
});
