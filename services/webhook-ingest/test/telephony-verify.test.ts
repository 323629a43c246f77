import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks';
import { parseFormParams } from '../src/providers/telephony/form-params';
import {
  expectedSignature,
  signedUrlCandidates,
} from '../src/providers/telephony/twilio-signature';
import { verify } from '../src/providers/telephony/telephony-signature';

/**
 * Unit tests of the telephony receiver's Twilio-scheme verification, against the `twilio`
 * package itself: its getExpectedTwilioSignature must produce signatures we accept, and for
 * every URL/parameter case our verdict must equal its validateRequest's.
 */
const TOKEN = 'twilio-auth-token-for-unit-tests';
const URL_ = 'https://crm.example.test/api/communications/webhooks';

type Params = Record<string, string | string[]>;

/** The form body a provider sends for `params` (repeated keys repeated, in the given order). */
function formBody(params: Params): Buffer {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, v);
  }
  return Buffer.from(search.toString());
}

const verdict = (body: Buffer, signature: string | undefined, url: string, token = TOKEN) => {
  const result = verify(
    body,
    signature === undefined ? {} : { 'x-telephony-signature': signature },
    token,
    url,
  );
  return result.ok
    ? 'accepted'
    : { status: result.rejection.status, message: result.rejection.message };
};

const FORBIDDEN = {
  status: 403,
  message: 'The signature does not match the request URL and parameters',
};

const CALL: Params = {
  CallSid: 'CA1234567890abcdef1234567890abcdef',
  AccountSid: 'AC1234567890abcdef1234567890abcdef',
  CallStatus: 'completed',
  From: '+14155550100',
  To: '+14155550199',
  Direction: 'inbound',
  CallDuration: '42',
  Timestamp: 'Tue, 01 Oct 2024 10:00:00 +0000',
};

describe('telephony verify() against the twilio package', () => {
  it.each<[string, Params]>([
    ['a status callback', CALL],
    ['no parameters', {}],
    [
      'reserved characters, spaces and unicode',
      { ...CALL, Caller: 'Zoë & Co + "x"=y%20', Note: 'a\nb' },
    ],
    ['a repeated key (values deduplicated and sorted)', { ...CALL, Tag: ['b', 'a', 'b', 'c'] }],
    ['keys whose order differs by case and digits', { b: '1', B: '2', a10: '3', a2: '4', _: '5' }],
    ['an empty value', { ...CALL, ForwardedFrom: '' }],
  ])('%s: accepted, and validateRequest agrees', (_label, params) => {
    const signature = getExpectedTwilioSignature(TOKEN, URL_, params);
    const body = formBody(params);
    expect(verdict(body, signature, URL_)).toBe('accepted');
    expect(expectedSignature(TOKEN, URL_, parseFormParams(body))).toBe(signature);
    expect(validateRequest(TOKEN, signature, URL_, params)).toBe(true);
  });

  it('a query string is part of the signed URL', () => {
    const url = `${URL_}?account=a1&x=%27y%27`;
    const signature = getExpectedTwilioSignature(TOKEN, url, CALL);
    expect(verdict(formBody(CALL), signature, url)).toBe('accepted');
    expect(verdict(formBody(CALL), signature, URL_)).toEqual(FORBIDDEN);
    expect(verdict(formBody(CALL), signature, `${URL_}?account=a2&x=%27y%27`)).toEqual(FORBIDDEN);
  });

  it('port variants: a signature over the URL with or without the default port is accepted either way', () => {
    const withPort = 'https://crm.example.test:443/api/communications/webhooks';
    for (const [signedOver, received] of [
      [withPort, URL_],
      [URL_, withPort],
    ]) {
      const signature = getExpectedTwilioSignature(TOKEN, signedOver, CALL);
      expect(verdict(formBody(CALL), signature, received)).toBe('accepted');
      expect(validateRequest(TOKEN, signature, received, CALL)).toBe(true);
    }
    // http's default port is 80, not 443.
    const signature = getExpectedTwilioSignature(TOKEN, 'http://crm.example.test:443/p', CALL);
    expect(verdict(formBody(CALL), signature, 'http://crm.example.test/p')).toEqual(FORBIDDEN);
    expect(validateRequest(TOKEN, signature, 'http://crm.example.test/p', CALL)).toBe(false);
  });

  it('URL encodings: the same verdicts as validateRequest', () => {
    const received = "https://crm.example.test/api/communications/webhooks?name=O'Brien&q=a b";
    for (const signedOver of [
      received,
      'https://crm.example.test/api/communications/webhooks?name=O%27Brien&q=a%20b',
      'https://crm.example.test/api/communications/webhooks?name=OBrien&q=a%20b',
    ]) {
      const signature = getExpectedTwilioSignature(TOKEN, signedOver, CALL);
      const ours = verdict(formBody(CALL), signature, received) === 'accepted';
      expect([signedOver, ours]).toEqual([
        signedOver,
        validateRequest(TOKEN, signature, received, CALL),
      ]);
    }
    expect(signedUrlCandidates(received)).toContain(received);
  });

  it.each<[string, (signature: string) => [Buffer, string | undefined, string, string?]]>([
    ['no header', () => [formBody(CALL), undefined, URL_]],
    ['a parameter changed', (s) => [formBody({ ...CALL, CallStatus: 'busy' }), s, URL_]],
    ['a parameter added', (s) => [formBody({ ...CALL, Extra: '1' }), s, URL_]],
    ['a parameter removed', (s) => [formBody({ ...CALL, Timestamp: [] }), s, URL_]],
    [
      'the internal address instead of the public URL',
      (s) => [formBody(CALL), s, 'http://127.0.0.1:4002/api/communications/webhooks'],
    ],
    ['another path', (s) => [formBody(CALL), s, `${URL_}/x`]],
    ['http instead of https', (s) => [formBody(CALL), s, URL_.replace('https:', 'http:')]],
    ['another token', (s) => [formBody(CALL), s, URL_, `${TOKEN}x`]],
    ['a hex digest instead of base64', () => [formBody(CALL), 'deadbeef', URL_]],
  ])('%s: 403', (label, make) => {
    const signature = getExpectedTwilioSignature(TOKEN, URL_, CALL);
    const [body, header, url, token] = make(signature);
    const expected =
      label === 'no header'
        ? { status: 403, message: 'The X-Telephony-Signature header is required' }
        : FORBIDDEN;
    expect(verdict(body, header, url, token)).toEqual(expected);
  });
});

describe('parseFormParams()', () => {
  it('reads the raw form bytes flat: + is a space, percent-decoding, repeated keys kept, brackets literal', () => {
    const params = parseFormParams(Buffer.from('a=1+2&b=%2B1&a=3&c[d]=4&e&__proto__=x&f=%zz'));
    expect([...params]).toEqual([
      ['a', ['1 2', '3']],
      ['b', ['+1']],
      ['c[d]', ['4']],
      ['e', ['']],
      ['__proto__', ['x']],
      ['f', ['%zz']],
    ]);
    expect([...parseFormParams(Buffer.alloc(0))]).toEqual([]);
  });
});
