import {
  hmac,
  hmacSha256Base64,
  hmacSha256Hex,
  randomToken,
  safeEqual,
  sha256Hex,
} from '@crm/shared/crypto';

// RFC 4231 test case 2 (HMAC-SHA256) and its siblings; expected values computed independently.
const JEFE_KEY = 'Jefe';
const JEFE_DATA = 'what do ya want for nothing?';

describe('hmac helpers match published test vectors', () => {
  it('computes RFC 4231 test case 2 for HMAC-SHA256 as hex', () => {
    expect(hmacSha256Hex(JEFE_KEY, JEFE_DATA)).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('computes RFC 4231 test case 2 for HMAC-SHA256 as base64', () => {
    expect(hmacSha256Base64(JEFE_KEY, JEFE_DATA)).toBe(
      'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=',
    );
  });

  it('computes RFC 4231 test case 1 (binary key) for HMAC-SHA256 in hex, base64 and base64url', () => {
    const key = Buffer.alloc(20, 0x0b);
    expect(hmac('sha256', key, 'Hi There', 'hex')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    );
    // This digest has '/' in base64, so the url-safe alphabet and the missing padding show.
    expect(hmacSha256Base64(key, 'Hi There')).toBe('sDRMYdjbOFNcqK/OrwvxK4gdwgDJgz2nJuk3bC4yz/c=');
    expect(hmac('sha256', key, 'Hi There', 'base64url')).toBe(
      'sDRMYdjbOFNcqK_OrwvxK4gdwgDJgz2nJuk3bC4yz_c',
    );
  });

  it('computes RFC 4231 test case 2 for HMAC-SHA512 and RFC 2202 test case 2 for HMAC-SHA1', () => {
    expect(hmac('sha512', JEFE_KEY, JEFE_DATA, 'hex')).toBe(
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    );
    expect(hmac('sha1', JEFE_KEY, JEFE_DATA, 'hex')).toBe(
      'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79',
    );
  });

  it('gives the same digest for a string and the Buffer of its bytes', () => {
    expect(hmacSha256Hex(Buffer.from(JEFE_KEY), Buffer.from(JEFE_DATA))).toBe(
      hmacSha256Hex(JEFE_KEY, JEFE_DATA),
    );
  });

  it('changes the digest when the key or the data change by one character', () => {
    const reference = hmacSha256Hex(JEFE_KEY, JEFE_DATA);
    expect(hmacSha256Hex('Jeff', JEFE_DATA)).not.toBe(reference);
    expect(hmacSha256Hex(JEFE_KEY, `${JEFE_DATA} `)).not.toBe(reference);
  });

  it('hashes with SHA-256 (FIPS 180-2 "abc" vector)', () => {
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('safeEqual', () => {
  it('is true for equal strings', () => {
    expect(safeEqual('a-signature-value', 'a-signature-value')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
  });

  it('is false for different strings of the same length', () => {
    expect(safeEqual('abcdef', 'abcdeg')).toBe(false);
    expect(safeEqual('Xbcdef', 'abcdef')).toBe(false);
  });

  it('is false (and does not throw) for strings of different lengths', () => {
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('abcd', 'abc')).toBe(false);
  });

  it('is false when either side is the empty string', () => {
    expect(safeEqual('', 'a')).toBe(false);
    expect(safeEqual('secret', '')).toBe(false);
  });

  it('compares Buffers by content, including against a string of the same bytes', () => {
    expect(safeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2, 3]))).toBe(true);
    expect(safeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2, 4]))).toBe(false);
    expect(safeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2]))).toBe(false);
    expect(safeEqual(Buffer.alloc(0), Buffer.from([0]))).toBe(false);
    expect(safeEqual(Buffer.from('hello'), 'hello')).toBe(true);
  });

  it('verifies a real signature and rejects it after a one-character change', () => {
    const signature = hmacSha256Hex(JEFE_KEY, JEFE_DATA);
    expect(
      safeEqual(signature, '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'),
    ).toBe(true);
    const altered = `${signature.slice(0, -1)}${signature.endsWith('3') ? '4' : '3'}`;
    expect(safeEqual(signature, altered)).toBe(false);
  });
});

describe('randomToken', () => {
  it('is url-safe and carries the requested number of bytes', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(Buffer.from(randomToken(8), 'base64url')).toHaveLength(8);
  });

  it('does not repeat', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => randomToken()));
    expect(tokens.size).toBe(50);
  });
});
