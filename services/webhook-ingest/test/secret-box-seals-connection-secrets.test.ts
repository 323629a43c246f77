import { createSecretBox } from '../src/secrets/secret-box';

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
