import { randomBytes } from 'node:crypto';
import { Webhook } from 'svix';
import {
  EMAIL_TOLERANCE_SECONDS,
  verifyEmailSignature,
} from '../src/providers/email/email-signature';

/**
 * The email receiver's pure verify: the Standard Webhooks / Svix
 * scheme under `email-webhook-*` headers, every failure a 401. svix reads the process clock
 * itself, so accepted cases are signed near the real time; the tolerance against the `now`
 * passed in is pinned by moving `now` away from the real time.
 */
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const BODY = '{"type":"email.opened","data":{"email_id":"em_1"}}';

function headersFor(body = BODY, at = new Date(), secret = SECRET, id = 'msg_2Lh9abc') {
  return {
    'email-webhook-id': id,
    'email-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'email-webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

const verify = (headers: Record<string, string>, body = BODY, now = new Date()) =>
  verifyEmailSignature(Buffer.from(body), headers, SECRET, now);

function expectRejected(result: ReturnType<typeof verifyEmailSignature>, message: RegExp | string) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.rejection).toMatchObject({
    status: 401,
    code: 'UNAUTHORIZED',
    error: 'Invalid signature',
  });
  expect(result.rejection.message).toMatch(message);
}

describe('verifyEmailSignature accepts', () => {
  it('the headers svix `new Webhook(secret).sign(id, date, body)` produces', () => {
    expect(verify(headersFor())).toEqual({ ok: true });
  });

  it('one valid v1 signature among several (space-separated, as during key rotation)', () => {
    const headers = headersFor();
    const other = headersFor(BODY, new Date(), `whsec_${randomBytes(24).toString('base64')}`);
    headers['email-webhook-signature'] =
      `v2,abc ${other['email-webhook-signature']} ${headers['email-webhook-signature']}`;
    expect(verify(headers).ok).toBe(true);
  });

  it('a timestamp four minutes old or ahead', () => {
    expect(EMAIL_TOLERANCE_SECONDS).toBe(300);
    expect(verify(headersFor(BODY, new Date(Date.now() - 240_000))).ok).toBe(true);
    expect(verify(headersFor(BODY, new Date(Date.now() + 240_000))).ok).toBe(true);
  });

  it('a correctly signed body that is not JSON (the route answers 400, not 401)', () => {
    const body = 'not json';
    expect(verify(headersFor(body), body).ok).toBe(true);
  });

  it('a secret given without the whsec_ prefix', () => {
    const headers = headersFor();
    expect(
      verifyEmailSignature(Buffer.from(BODY), headers, SECRET.slice('whsec_'.length), new Date())
        .ok,
    ).toBe(true);
  });
});

describe('verifyEmailSignature rejects with 401', () => {
  it.each(['email-webhook-id', 'email-webhook-timestamp', 'email-webhook-signature'])(
    'a request without %s (naming it)',
    (name) => {
      const headers: Record<string, string> = headersFor();
      delete headers[name];
      expectRejected(verify(headers), `Missing signature header(s): ${name}`);
    },
  );

  it.each(['webhook', 'svix'])('the bare %s-* header names instead of ours', (prefix) => {
    const ours = headersFor();
    const theirs = {
      [`${prefix}-id`]: ours['email-webhook-id'],
      [`${prefix}-timestamp`]: ours['email-webhook-timestamp'],
      [`${prefix}-signature`]: ours['email-webhook-signature'],
    };
    expectRejected(verify(theirs), /Missing signature header/);
  });

  it('a timestamp that is not unix seconds', () => {
    const headers = headersFor();
    headers['email-webhook-timestamp'] += 'abc';
    expectRejected(verify(headers), 'The email-webhook-timestamp header must be unix seconds');
  });

  it('a timestamp six minutes old or ahead of the real clock', () => {
    expectRejected(
      verify(headersFor(BODY, new Date(Date.now() - 360_000))),
      /more than 300 seconds/,
    );
    expectRejected(
      verify(headersFor(BODY, new Date(Date.now() + 360_000))),
      /more than 300 seconds/,
    );
  });

  it('a fresh signature judged at a `now` more than 300 s away (the check uses `now`, not only svix)', () => {
    const signedAt = new Date();
    const headers = headersFor(BODY, signedAt);
    expectRejected(verify(headers, BODY, new Date(signedAt.getTime() + 301_000)), /more than 300/);
    expectRejected(verify(headers, BODY, new Date(signedAt.getTime() - 301_000)), /more than 300/);
  });

  it('a signature made with another secret', () => {
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expectRejected(verify(headersFor(BODY, new Date(), other)), /does not match/);
  });

  it('a body, id or timestamp changed after signing', () => {
    expectRejected(verify(headersFor(), BODY.replace('opened', 'clicked')), /does not match/);
    const otherId = { ...headersFor(), 'email-webhook-id': 'msg_other' };
    expectRejected(verify(otherId), /does not match/);
    const headers = headersFor();
    headers['email-webhook-timestamp'] = String(Number(headers['email-webhook-timestamp']) - 1);
    expectRejected(verify(headers), /does not match/);
  });

  it('a signature without the v1 version tag', () => {
    const headers = headersFor();
    headers['email-webhook-signature'] = headers['email-webhook-signature'].replace(/^v1,/, '');
    expectRejected(verify(headers), /does not match/);
  });
});

describe('verifyEmailSignature with a secret svix cannot use', () => {
  it('answers 503 Webhook secret not configured, without echoing the secret', () => {
    const result = verifyEmailSignature(Buffer.from(BODY), headersFor(), 'whsec_!!!', new Date());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejection).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      error: 'Webhook secret not configured',
    });
    expect(result.rejection.message).not.toContain('!!!');
  });
});
