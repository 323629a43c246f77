import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { lemonsqueezy } from '../src/providers/payments/lemonsqueezy';
import { PADDLE_TOLERANCE_SECONDS, paddle } from '../src/providers/payments/paddle';
import { razorpay } from '../src/providers/payments/razorpay';
import { stripe } from '../src/providers/payments/stripe';
import type { Verification } from '@crm/shared/inbound';

/**
 * The payment providers' pure verifiers, each against headers made the way that provider
 * makes them: Stripe's own SDK, and node:crypto HMACs for Razorpay (hex of the body),
 * Paddle (`ts=..;h1=` hex of `<ts>:<body>`) and Lemon Squeezy (hex of the body). Every
 * failure, a missing header included, is a 401.
 */
const NOW = new Date('2024-05-01T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const BODY = Buffer.from('{"id":"evt_1","amount":1000}');
const TAMPERED = Buffer.from('{"id":"evt_1","amount":1}');

const hmacHex = (secret: string, data: Buffer) =>
  createHmac('sha256', secret).update(data).digest('hex');
const paddleHeader = (secret: string, ts: number, body = BODY) =>
  `ts=${ts};h1=${hmacHex(secret, Buffer.concat([Buffer.from(`${ts}:`), body]))}`;

function expectUnauthorized(result: Verification, message: RegExp) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.rejection.status).toBe(401);
  expect(result.rejection.code).toBe('UNAUTHORIZED');
  expect(result.rejection.message).toMatch(message);
}

describe('stripe verify (Stripe-Signature)', () => {
  const SECRET = 'whsec_payments_stripe_secret';
  const sdk = new Stripe('sk_test_unused');
  const header = (timestamp = NOW_S, secret = SECRET) => ({
    'stripe-signature': sdk.webhooks.generateTestHeaderString({
      payload: BODY.toString(),
      secret,
      timestamp,
    }),
  });

  it("accepts Stripe's SDK header", () => {
    expect(stripe.verify(BODY, header(), SECRET, NOW)).toEqual({ ok: true });
  });

  it('rejects a tampered body, another secret, a stale or future timestamp', () => {
    expectUnauthorized(stripe.verify(TAMPERED, header(), SECRET, NOW), /does not match/);
    expectUnauthorized(
      stripe.verify(BODY, header(NOW_S, 'whsec_x'), SECRET, NOW),
      /does not match/,
    );
    expectUnauthorized(stripe.verify(BODY, header(NOW_S - 301), SECRET, NOW), /300 seconds/);
    expectUnauthorized(stripe.verify(BODY, header(NOW_S + 301), SECRET, NOW), /300 seconds/);
  });

  it('rejects a missing header with 401 (unlike billing)', () => {
    expectUnauthorized(stripe.verify(BODY, {}, SECRET, NOW), /Stripe-Signature header is required/);
  });
});

describe('razorpay verify (X-Razorpay-Signature)', () => {
  const SECRET = 'razorpay-webhook-secret';
  const header = (value: string) => ({ 'x-razorpay-signature': value });

  it('accepts the hex HMAC-SHA256 of the raw body', () => {
    expect(razorpay.verify(BODY, header(hmacHex(SECRET, BODY)), SECRET, NOW)).toEqual({
      ok: true,
    });
  });

  it('rejects a tampered body, another secret, a missing header', () => {
    const signature = hmacHex(SECRET, BODY);
    expectUnauthorized(razorpay.verify(TAMPERED, header(signature), SECRET, NOW), /does not match/);
    const other = hmacHex('other', BODY);
    expectUnauthorized(razorpay.verify(BODY, header(other), SECRET, NOW), /does not match/);
    expectUnauthorized(razorpay.verify(BODY, {}, SECRET, NOW), /X-Razorpay-Signature/);
    expectUnauthorized(razorpay.verify(BODY, header(''), SECRET, NOW), /X-Razorpay-Signature/);
  });

  it('rejects a base64 signature of the right HMAC (the scheme is hex)', () => {
    const base64 = createHmac('sha256', SECRET).update(BODY).digest('base64');
    expectUnauthorized(razorpay.verify(BODY, header(base64), SECRET, NOW), /does not match/);
  });
});

describe('paddle verify (Paddle-Signature)', () => {
  const SECRET = 'pdl_ntfset_01hxyz_paddle_secret';
  const header = (value: string) => ({ 'paddle-signature': value });

  it('accepts h1 = hex HMAC-SHA256 of `<ts>:<raw body>`', () => {
    expect(paddle.verify(BODY, header(paddleHeader(SECRET, NOW_S)), SECRET, NOW)).toEqual({
      ok: true,
    });
  });

  it('accepts one matching h1 among several (secret rotation)', () => {
    const good = paddleHeader(SECRET, NOW_S).split(';')[1];
    const old = paddleHeader('pdl_old', NOW_S).split(';')[1];
    expect(paddle.verify(BODY, header(`ts=${NOW_S};${old};${good}`), SECRET, NOW).ok).toBe(true);
  });

  it('uses a 300 s tolerance (Paddle SDK default is 5 s), either way', () => {
    expect(PADDLE_TOLERANCE_SECONDS).toBe(300);
    for (const ts of [NOW_S - 300, NOW_S + 300]) {
      expect(paddle.verify(BODY, header(paddleHeader(SECRET, ts)), SECRET, NOW).ok).toBe(true);
    }
    for (const ts of [NOW_S - 301, NOW_S + 301]) {
      expectUnauthorized(
        paddle.verify(BODY, header(paddleHeader(SECRET, ts)), SECRET, NOW),
        /more than 300 seconds/,
      );
    }
  });

  it('rejects a tampered body, another secret, a Stripe-style `.` separator', () => {
    const signed = header(paddleHeader(SECRET, NOW_S));
    expectUnauthorized(paddle.verify(TAMPERED, signed, SECRET, NOW), /does not match/);
    const other = header(paddleHeader('pdl_other', NOW_S));
    expectUnauthorized(paddle.verify(BODY, other, SECRET, NOW), /does not match/);
    const dotted = hmacHex(SECRET, Buffer.concat([Buffer.from(`${NOW_S}.`), BODY]));
    expectUnauthorized(
      paddle.verify(BODY, header(`ts=${NOW_S};h1=${dotted}`), SECRET, NOW),
      /does not match/,
    );
  });

  it.each([
    ['missing', undefined, /Paddle-Signature header is required/],
    ['no ts', `h1=${'a'.repeat(64)}`, /malformed/],
    ['no h1', `ts=${NOW_S}`, /malformed/],
    ['comma-separated', `ts=${NOW_S},h1=${'a'.repeat(64)}`, /malformed/],
    ['two ts', `ts=${NOW_S};ts=1;h1=${'a'.repeat(64)}`, /malformed/],
  ])('rejects a header that is %s', (_case, value, message) => {
    const headers = value === undefined ? {} : header(value);
    expectUnauthorized(paddle.verify(BODY, headers, SECRET, NOW), message);
  });
});

describe('lemonsqueezy verify (X-Signature)', () => {
  const SECRET = 'lemon-signing-secret';
  const header = (value: string) => ({ 'x-signature': value });

  it('accepts the hex HMAC-SHA256 of the raw body', () => {
    expect(lemonsqueezy.verify(BODY, header(hmacHex(SECRET, BODY)), SECRET, NOW)).toEqual({
      ok: true,
    });
  });

  it('rejects a tampered body, another secret, a missing header', () => {
    const signature = hmacHex(SECRET, BODY);
    expectUnauthorized(
      lemonsqueezy.verify(TAMPERED, header(signature), SECRET, NOW),
      /does not match/,
    );
    const other = hmacHex('other', BODY);
    expectUnauthorized(lemonsqueezy.verify(BODY, header(other), SECRET, NOW), /does not match/);
    expectUnauthorized(
      lemonsqueezy.verify(BODY, {}, SECRET, NOW),
      /X-Signature header is required/,
    );
  });
});
