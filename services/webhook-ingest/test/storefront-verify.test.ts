import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { verifyStorefrontA } from '../src/providers/storefront-a/storefront-a-signature';
import {
  isStorefrontBPing,
  verifyStorefrontB,
} from '../src/providers/storefront-b/storefront-b-signature';
import type { Verification } from '@crm/shared/inbound';

/**
 * The storefront signature checks as pure functions (no HTTP, no database): base64
 * HMAC-SHA256 of the exact body bytes under the connection's secret, for both platforms,
 * and storefront B's unsigned creation ping.
 */
const SECRET = 'shop-webhook-secret';
const BODY = Buffer.from('{"id":1001,"email":"ann@example.test","total_price":"10.00"}');
const sign = (body: Buffer | string, secret = SECRET) =>
  createHmac('sha256', secret).update(body).digest('base64');

function rejection(result: Verification) {
  if (result.ok) throw new Error('expected a rejection');
  const { status, code, error, message } = result.rejection;
  return { status, code, error, message };
}

const SCHEMES = [
  { name: 'storefront A', header: 'x-storefront-a-hmac-sha256', verify: verifyStorefrontA },
  { name: 'storefront B', header: 'x-storefront-b-webhook-signature', verify: verifyStorefrontB },
];

describe.each(SCHEMES)('$name verify', ({ header, verify }) => {
  const headersWith = (signature: string | string[]): IncomingHttpHeaders => ({
    [header]: signature,
  });

  it('accepts the base64 HMAC-SHA256 of the raw body under the secret (known vector)', () => {
    const fox = Buffer.from('The quick brown fox jumps over the lazy dog');
    expect(verify(fox, headersWith('97yD9DBThCSxMpjmqm+xQ+9NWaFJRhdZl0edvC0aPNg='), 'key')).toEqual(
      {
        ok: true,
      },
    );
  });

  it('accepts a signature with surrounding whitespace, and the first of repeated headers', () => {
    expect(verify(BODY, headersWith(` ${sign(BODY)} `), SECRET)).toEqual({ ok: true });
    expect(verify(BODY, headersWith([sign(BODY), 'other']), SECRET)).toEqual({ ok: true });
  });

  it('checks the exact bytes: a body differing by one byte or by whitespace is refused', () => {
    const signature = sign(BODY);
    const tampered = Buffer.from(BODY.toString().replace('10.00', '11.00'));
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
    for (const body of [tampered, reformatted]) {
      expect(rejection(verify(body, headersWith(signature), SECRET))).toEqual({
        status: 401,
        code: 'UNAUTHORIZED',
        error: 'Invalid signature',
        message: 'The signature does not match the request body',
      });
    }
  });

  it('refuses a signature made with another secret, a hex digest, and garbage', () => {
    for (const signature of [
      sign(BODY, 'another-secret'),
      createHmac('sha256', SECRET).update(BODY).digest('hex'),
      'not-a-signature',
    ]) {
      expect(rejection(verify(BODY, headersWith(signature), SECRET)).status).toBe(401);
    }
  });

  it('refuses a missing or empty signature header with 401 naming the header', () => {
    for (const headers of [{}, headersWith(''), headersWith('   ')]) {
      expect(rejection(verify(BODY, headers, SECRET))).toEqual({
        status: 401,
        code: 'UNAUTHORIZED',
        error: 'Invalid signature',
        message: `The ${header} header is required`,
      });
    }
  });

  it("does not accept the other platform's signature header", () => {
    const other = SCHEMES.find((scheme) => scheme.header !== header)!.header;
    expect(verify(BODY, { [other]: sign(BODY) }, SECRET).ok).toBe(false);
  });
});

describe('storefront B creation ping', () => {
  const ping = Buffer.from('webhook_id=42');

  it('is an unsigned `webhook_id=<digits>` body, with or without other headers', () => {
    expect(isStorefrontBPing(ping, {})).toBe(true);
    expect(
      isStorefrontBPing(ping, {
        'content-type': 'application/x-www-form-urlencoded',
        'x-storefront-b-webhook-source': 'https://shop.example.test/',
      }),
    ).toBe(true);
  });

  it('is not a ping once it carries a signature header (then it must verify)', () => {
    expect(isStorefrontBPing(ping, { 'x-storefront-b-webhook-signature': sign(ping) })).toBe(false);
  });

  it('is only that exact body: anything else unsigned is an ordinary delivery', () => {
    for (const body of [
      'webhook_id=',
      'webhook_id=42&x=1',
      'webhook_id=42\n',
      'webhook_id=abc',
      '{"webhook_id":42}',
      '',
      `webhook_id=${'9'.repeat(21)}`,
    ]) {
      expect(isStorefrontBPing(Buffer.from(body), {})).toBe(false);
    }
  });
});
