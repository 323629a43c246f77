import { createHmac } from 'node:crypto';
import {
  NETWORK_TOLERANCE_SECONDS,
  verifyNetworkSignature,
} from '../src/providers/network/network-signature';

/**
 * The network receiver's pure verify (specified): HMAC-SHA256 over
 * `<t>.<raw body>`, 300 s tolerance either way, every failure a 401. Signatures here are
 * computed with node:crypto directly, not with code under test.
 */
const SECRET = 'network-test-secret';
const NOW = new Date('2024-05-01T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const BODY = Buffer.from('{"id":"evt_1","type":"MESSAGE_SENT","account_id":"acc_1"}');

const hmacHex = (secret: string, t: number | string, body: Buffer) =>
  createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest('hex');
const header = (value: string) => ({ 'x-network-signature': value });
const signed = (t = NOW_S, body = BODY, secret = SECRET) =>
  header(`t=${t},v1=${hmacHex(secret, t, body)}`);

function expectRejected(result: ReturnType<typeof verifyNetworkSignature>, message: RegExp) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.rejection.status).toBe(401);
  expect(result.rejection.code).toBe('UNAUTHORIZED');
  expect(result.rejection.error).toBe('Invalid signature');
  expect(result.rejection.message).toMatch(message);
}

describe('verifyNetworkSignature accepts', () => {
  it('a v1 HMAC-SHA256 of `<t>.<raw body>` keyed by the secret', () => {
    expect(verifyNetworkSignature(BODY, signed(), SECRET, NOW)).toEqual({ ok: true });
  });

  it('a timestamp exactly 300 seconds before or after now', () => {
    expect(NETWORK_TOLERANCE_SECONDS).toBe(300);
    expect(verifyNetworkSignature(BODY, signed(NOW_S - 300), SECRET, NOW).ok).toBe(true);
    expect(verifyNetworkSignature(BODY, signed(NOW_S + 300), SECRET, NOW).ok).toBe(true);
  });

  it('one matching v1 among several (secret rotation), in upper-case hex, with spaces', () => {
    const good = hmacHex(SECRET, NOW_S, BODY).toUpperCase();
    const other = hmacHex('old-secret', NOW_S, BODY);
    const value = `t=${NOW_S}, v1=${other}, v1=${good}`;
    expect(verifyNetworkSignature(BODY, header(value), SECRET, NOW).ok).toBe(true);
  });

  it('a body that is not valid UTF-8: the bytes are signed, not a decoded string', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(verifyNetworkSignature(bytes, signed(NOW_S, bytes), SECRET, NOW).ok).toBe(true);
    const decoded = Buffer.from(bytes.toString('utf8'));
    expect(verifyNetworkSignature(bytes, signed(NOW_S, decoded), SECRET, NOW).ok).toBe(false);
  });

  it('the first value when a header arrives as an array', () => {
    const value = `t=${NOW_S},v1=${hmacHex(SECRET, NOW_S, BODY)}`;
    const headers = { 'x-network-signature': [value, 't=1,v1=00'] };
    expect(verifyNetworkSignature(BODY, headers, SECRET, NOW).ok).toBe(true);
  });
});

describe('verifyNetworkSignature rejects with 401', () => {
  it('a missing or empty header', () => {
    expectRejected(
      verifyNetworkSignature(BODY, {}, SECRET, NOW),
      /x-network-signature header is required/,
    );
    expectRejected(verifyNetworkSignature(BODY, header(''), SECRET, NOW), /required/);
  });

  it.each([
    ['no t', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${NOW_S}`],
    ['a non-numeric t', `t=12ab,v1=${'a'.repeat(64)}`],
    ['a negative t', `t=-${NOW_S},v1=${'a'.repeat(64)}`],
    ['two t values', `t=${NOW_S},t=${NOW_S},v1=${'a'.repeat(64)}`],
    ['a v1 that is not 64 hex digits', `t=${NOW_S},v1=zz${'a'.repeat(62)}`],
    ['a Stripe-style v0 only', `t=${NOW_S},v0=${'a'.repeat(64)}`],
    ['a bare signature', 'a'.repeat(64)],
  ])('a malformed header: %s', (_case, value) => {
    expectRejected(
      verifyNetworkSignature(BODY, header(value), SECRET, NOW),
      /must be t=<unix seconds>,v1=/,
    );
  });

  it('a timestamp 301 seconds before or after now, even when correctly signed', () => {
    expectRejected(
      verifyNetworkSignature(BODY, signed(NOW_S - 301), SECRET, NOW),
      /more than 300 seconds/,
    );
    expectRejected(
      verifyNetworkSignature(BODY, signed(NOW_S + 301), SECRET, NOW),
      /more than 300 seconds/,
    );
  });

  it('a signature made with another secret', () => {
    expectRejected(
      verifyNetworkSignature(BODY, signed(NOW_S, BODY, 'other-secret'), SECRET, NOW),
      /does not match/,
    );
  });

  it('a body changed by one byte, or re-serialised with other whitespace', () => {
    const changed = Buffer.from(BODY);
    changed[changed.length - 2] ^= 1;
    expectRejected(verifyNetworkSignature(changed, signed(), SECRET, NOW), /does not match/);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
    expectRejected(verifyNetworkSignature(reserialised, signed(), SECRET, NOW), /does not match/);
  });

  it('a signature whose timestamp was changed after signing', () => {
    const v1 = hmacHex(SECRET, NOW_S, BODY);
    expectRejected(
      verifyNetworkSignature(BODY, header(`t=${NOW_S + 1},v1=${v1}`), SECRET, NOW),
      /does not match/,
    );
  });

  it('a signature over the body alone (without the `<t>.` prefix)', () => {
    const v1 = createHmac('sha256', SECRET).update(BODY).digest('hex');
    expectRejected(
      verifyNetworkSignature(BODY, header(`t=${NOW_S},v1=${v1}`), SECRET, NOW),
      /does not match/,
    );
  });
});
