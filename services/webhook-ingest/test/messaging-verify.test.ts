import { createHmac } from 'node:crypto';
import { answerHandshake } from '../src/providers/messaging/handshake';
import { verify } from '../src/providers/messaging/messaging-signature';

/**
 * Unit tests of the messaging receiver's pure checks: the `x-hub-signature-256` verification
 * (HMAC-SHA256 of the exact bytes, computed here independently with node:crypto) and the GET
 * subscription handshake.
 */
const SECRET = 'app-secret-for-unit-tests';
const BODY = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
const signatureOf = (body: Buffer | string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

function rejection(result: ReturnType<typeof verify>) {
  if (result.ok) throw new Error('expected a rejection');
  const { status, code, error, message } = result.rejection;
  return { status, code, error, message };
}

const BAD_SIGNATURE = {
  status: 401,
  code: 'UNAUTHORIZED',
  error: 'Invalid signature',
  message: 'The signature does not match the request body',
};

describe('messaging verify()', () => {
  it('accepts the HMAC-SHA256 of the exact bytes, in lower or upper case hex', () => {
    expect(verify(BODY, { 'x-hub-signature-256': signatureOf(BODY) }, SECRET)).toEqual({
      ok: true,
    });
    const upper = `sha256=${signatureOf(BODY).slice('sha256='.length).toUpperCase()}`;
    expect(verify(BODY, { 'x-hub-signature-256': upper }, SECRET)).toEqual({ ok: true });
  });

  it('uses the first of repeated headers', () => {
    const headers = { 'x-hub-signature-256': [signatureOf(BODY), 'sha256=00'] };
    expect(verify(BODY, headers, SECRET)).toEqual({ ok: true });
  });

  it('missing or empty header: 401 naming the header', () => {
    const missing = {
      ...BAD_SIGNATURE,
      message: 'The x-hub-signature-256 header is required',
    };
    expect(rejection(verify(BODY, {}, SECRET))).toEqual(missing);
    expect(rejection(verify(BODY, { 'x-hub-signature-256': '' }, SECRET))).toEqual(missing);
  });

  it.each([
    [
      'another body (one byte changed)',
      signatureOf(Buffer.from(BODY.toString().replace('[]', '[ ]'))),
    ],
    [
      'the body re-serialised (key order)',
      signatureOf('{"entry":[],"object":"whatsapp_business_account"}'),
    ],
    ['another secret', signatureOf(BODY, `${SECRET}x`)],
    ['the bare hex without the sha256= prefix', signatureOf(BODY).slice('sha256='.length)],
    ['a sha1 prefix', signatureOf(BODY).replace('sha256=', 'sha1=')],
    ['a truncated digest', signatureOf(BODY).slice(0, -2)],
    ['garbage', 'sha256=not-hex'],
  ])('a signature over %s: 401', (_label, signature) => {
    expect(rejection(verify(BODY, { 'x-hub-signature-256': signature }, SECRET))).toEqual(
      BAD_SIGNATURE,
    );
  });
});

describe('messaging answerHandshake()', () => {
  const TOKEN = 'verify-token-123';
  const query = (overrides: Record<string, unknown> = {}) => ({
    'hub.mode': 'subscribe',
    'hub.verify_token': TOKEN,
    'hub.challenge': '1158201444',
    ...overrides,
  });

  it('subscribe with the configured token: the challenge', () => {
    expect(answerHandshake(query(), TOKEN)).toEqual({ ok: true, challenge: '1158201444' });
  });

  it.each([
    ['a wrong token', query({ 'hub.verify_token': `${TOKEN}x` }), TOKEN],
    ['a token prefix', query({ 'hub.verify_token': TOKEN.slice(0, -1) }), TOKEN],
    ['no token', query({ 'hub.verify_token': undefined }), TOKEN],
    ['a repeated token (array)', query({ 'hub.verify_token': [TOKEN, TOKEN] }), TOKEN],
    ['another mode', query({ 'hub.mode': 'unsubscribe' }), TOKEN],
    ['no mode', query({ 'hub.mode': undefined }), TOKEN],
    ['no token configured', query(), undefined],
    ['no token configured, empty token sent', query({ 'hub.verify_token': '' }), undefined],
  ])('%s: forbidden', (_label, q, configured) => {
    expect(answerHandshake(q, configured)).toEqual({ ok: false, reason: 'forbidden' });
  });

  it('the right token without a challenge: missing_challenge', () => {
    expect(answerHandshake(query({ 'hub.challenge': undefined }), TOKEN)).toEqual({
      ok: false,
      reason: 'missing_challenge',
    });
    expect(answerHandshake(query({ 'hub.challenge': ['1', '2'] }), TOKEN)).toEqual({
      ok: false,
      reason: 'missing_challenge',
    });
  });
});
