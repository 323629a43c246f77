import { isSecretLikeHeader, ledgerHeaders, REDACTED } from '../src/inbound';

/**
 * What the inbound ledger keeps of a delivery's headers: every header by its lower-case name,
 * the value of any credential-like one replaced, repeated ones joined, the whole bounded.
 */
describe('ledgerHeaders', () => {
  it("redacts every provider's signature header and anything secret-like, keeps the rest", () => {
    const signatures = [
      'x-storefront-a-hmac-sha256',
      'x-storefront-b-webhook-signature',
      'stripe-signature',
      'x-razorpay-signature',
      'paddle-signature',
      'x-signature',
      'x-hub-signature-256',
      'x-network-signature',
      'billing-signature',
      'email-webhook-signature',
      'x-telephony-signature',
    ];
    const credentials = [
      'authorization',
      'cookie',
      'x-api-key',
      'x-auth-token',
      'x-webhook-secret',
      'x-crm-identity',
      'x-svc-signature',
      'proxy-authorization',
    ];
    const headers = Object.fromEntries(
      [...signatures, ...credentials].map((name) => [name, `value-of-${name}`]),
    );
    const kept = ledgerHeaders({
      ...headers,
      'content-type': 'application/json',
      'x-storefront-a-shop-domain': 'shop.example.test',
      'x-storefront-a-topic': 'orders/create',
    });
    for (const name of [...signatures, ...credentials]) expect(kept[name]).toBe(REDACTED);
    expect(JSON.stringify(kept)).not.toContain('value-of-');
    expect(kept).toMatchObject({
      'content-type': 'application/json',
      'x-storefront-a-shop-domain': 'shop.example.test',
      'x-storefront-a-topic': 'orders/create',
    });
  });

  it('judges names case-insensitively and stores them lower-cased', () => {
    expect(isSecretLikeHeader('Stripe-Signature')).toBe(true);
    expect(isSecretLikeHeader('X-Forwarded-For')).toBe(false);
    expect(ledgerHeaders({ 'X-Hub-Signature-256': 'sha256=abc' })).toEqual({
      'x-hub-signature-256': REDACTED,
    });
  });

  it('joins repeated headers, skips absent ones, bounds values and the count', () => {
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x-h-${i}`, 'v']));
    expect(Object.keys(ledgerHeaders(many))).toHaveLength(100);
    expect(
      ledgerHeaders({ 'x-forwarded-for': ['1.1.1.1', '2.2.2.2'], 'x-none': undefined }),
    ).toEqual({ 'x-forwarded-for': '1.1.1.1, 2.2.2.2' });
    expect(ledgerHeaders({ 'x-long': 'a'.repeat(5000) })['x-long']).toHaveLength(1000);
  });
});
