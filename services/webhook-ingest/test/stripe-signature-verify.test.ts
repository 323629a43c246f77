import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { verify as verifyBilling } from '../src/providers/billing/billing-signature';
import {
  STRIPE_TOLERANCE_SECONDS,
  verifyStripeSignature,
} from '../src/providers/billing/stripe-signature';
import type { Verification } from '@crm/shared/inbound';

/**
 * The Stripe-Signature scheme shared by the billing receiver (`billing-signature`) and Stripe
 * payment connections: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by the
 * whole `whsec_...` secret, 300 s either way. Headers come from Stripe's own SDK
 * (generateTestHeaderString) or from node:crypto, never from the code under test.
 */
const SECRET = 'whsec_dGVzdC1zZWNyZXQtZm9yLWJpbGxpbmc=';
const NOW = new Date('2024-05-01T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const PAYLOAD = '{"id":"evt_1","type":"customer.subscription.updated","data":{"object":{}}}';
const BODY = Buffer.from(PAYLOAD);
const stripe = new Stripe('sk_test_unused');

const stripeHeader = (timestamp = NOW_S, payload = PAYLOAD, secret = SECRET) =>
  stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
const hmacHex = (key: string | Buffer, t: number, body: Buffer) =>
  createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${t}.`), body]))
    .digest('hex');

function expectUnauthorized(result: Verification, message: RegExp) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.rejection.status).toBe(401);
  expect(result.rejection.code).toBe('UNAUTHORIZED');
  expect(result.rejection.error).toBe('Invalid signature');
  expect(result.rejection.message).toMatch(message);
}

describe('verifyStripeSignature accepts', () => {
  it("a header made by Stripe's SDK (generateTestHeaderString)", () => {
    expect(verifyStripeSignature(BODY, stripeHeader(), SECRET, NOW)).toEqual({ ok: true });
  });

  it('the whole whsec_ string as the key, as Stripe uses it (not base64-decoded)', () => {
    const decodedKey = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const decodedSigned = `t=${NOW_S},v1=${hmacHex(decodedKey, NOW_S, BODY)}`;
    expectUnauthorized(verifyStripeSignature(BODY, decodedSigned, SECRET, NOW), /does not match/);
    const wholeSigned = `t=${NOW_S},v1=${hmacHex(SECRET, NOW_S, BODY)}`;
    expect(verifyStripeSignature(BODY, wholeSigned, SECRET, NOW).ok).toBe(true);
  });

  it('a timestamp exactly 300 seconds before or after now', () => {
    expect(STRIPE_TOLERANCE_SECONDS).toBe(300);
    expect(verifyStripeSignature(BODY, stripeHeader(NOW_S - 300), SECRET, NOW).ok).toBe(true);
    expect(verifyStripeSignature(BODY, stripeHeader(NOW_S + 300), SECRET, NOW).ok).toBe(true);
  });

  it('one matching v1 among several (secret roll), whatever its position', () => {
    const good = hmacHex(SECRET, NOW_S, BODY);
    const old = hmacHex('whsec_old', NOW_S, BODY);
    for (const value of [
      `t=${NOW_S},v1=${old},v1=${good}`,
      `t=${NOW_S},v1=${good},v1=${old}`,
      `t=${NOW_S},v0=${old},v1=${good}`,
    ]) {
      expect(verifyStripeSignature(BODY, value, SECRET, NOW).ok).toBe(true);
    }
  });

  it('the exact bytes: a body that is not valid UTF-8 verifies only as sent', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const signedBytes = `t=${NOW_S},v1=${hmacHex(SECRET, NOW_S, bytes)}`;
    expect(verifyStripeSignature(bytes, signedBytes, SECRET, NOW).ok).toBe(true);
    const decoded = Buffer.from(bytes.toString('utf8'));
    const signedDecoded = `t=${NOW_S},v1=${hmacHex(SECRET, NOW_S, decoded)}`;
    expect(verifyStripeSignature(bytes, signedDecoded, SECRET, NOW).ok).toBe(false);
  });
});

describe('verifyStripeSignature rejects with 401', () => {
  it('a tampered body', () => {
    const tampered = Buffer.from(PAYLOAD.replace('evt_1', 'evt_2'));
    expectUnauthorized(
      verifyStripeSignature(tampered, stripeHeader(), SECRET, NOW),
      /does not match/,
    );
  });

  it('a header signed with another secret', () => {
    const other = stripeHeader(NOW_S, PAYLOAD, 'whsec_another');
    expectUnauthorized(verifyStripeSignature(BODY, other, SECRET, NOW), /does not match/);
  });

  it('a genuine signature 301 seconds old or 301 seconds in the future', () => {
    for (const t of [NOW_S - 301, NOW_S + 301]) {
      expectUnauthorized(
        verifyStripeSignature(BODY, stripeHeader(t), SECRET, NOW),
        /more than 300 seconds/,
      );
    }
  });

  it('a signature for another timestamp than the one in the header', () => {
    const value = `t=${NOW_S},v1=${hmacHex(SECRET, NOW_S - 1, BODY)}`;
    expectUnauthorized(verifyStripeSignature(BODY, value, SECRET, NOW), /does not match/);
  });

  it.each([
    ['no t', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${NOW_S}`],
    ['only a v0', `t=${NOW_S},v0=${'a'.repeat(64)}`],
    ['a non-numeric t', `t=12ab,v1=${'a'.repeat(64)}`],
    ['a negative t', `t=-${NOW_S},v1=${'a'.repeat(64)}`],
    ['two t values', `t=${NOW_S},t=${NOW_S - 1},v1=${'a'.repeat(64)}`],
    ['a bare signature', 'a'.repeat(64)],
    ['empty parts', ',,,'],
  ])('a malformed header: %s', (_case, value) => {
    expectUnauthorized(verifyStripeSignature(BODY, value, SECRET, NOW), /malformed/);
  });

  it('an empty v1', () => {
    expectUnauthorized(
      verifyStripeSignature(BODY, `t=${NOW_S},v1=`, SECRET, NOW),
      /does not match/,
    );
  });
});

describe('billing verify (billing-signature header)', () => {
  it('accepts a Stripe SDK header under billing-signature', () => {
    const headers = { 'billing-signature': stripeHeader() };
    expect(verifyBilling(BODY, headers, SECRET, NOW)).toEqual({ ok: true });
  });

  it('answers a missing or empty header with 400, naming the header', () => {
    for (const headers of [
      {},
      { 'billing-signature': '' },
      { 'stripe-signature': stripeHeader() },
    ]) {
      const result = verifyBilling(BODY, headers, SECRET, NOW);
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.rejection.status).toBe(400);
      expect(result.rejection.code).toBe('INVALID_REQUEST');
      expect(result.rejection.error).toBe('Missing signature header');
      expect(result.rejection.details).toEqual({ header: 'billing-signature' });
    }
  });

  it('answers a bad or stale signature with 401', () => {
    const stale = { 'billing-signature': stripeHeader(NOW_S - 3600) };
    expectUnauthorized(verifyBilling(BODY, stale, SECRET, NOW), /more than 300 seconds/);
    const wrong = { 'billing-signature': stripeHeader(NOW_S, PAYLOAD, 'whsec_wrong') };
    expectUnauthorized(verifyBilling(BODY, wrong, SECRET, NOW), /does not match/);
  });
});
