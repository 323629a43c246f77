import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hmacSha256Hex } from '@crm/shared/crypto';
import { freePortForTests, testGateway, upstreamsAt, useGatewayWithEcho } from '@crm/test-kit';
import request from 'supertest';

const upstream = useGatewayWithEcho();
beforeEach(() => {
  upstream.echo.received.length = 0;
});

// Whitespace, key order, escapes and unicode that JSON.parse + JSON.stringify would change.
const RAW = Buffer.from(
  '{ "event" :"email.replied",\n\t"subject":"Grüße \\u00e9 — ✓ 🚀",  "n": 1.50 }\r\n',
  'utf8',
);

describe('raw requests reach the service untouched', () => {
  it.each([
    ['/api/webhooks/billing?attempt=2&x=%20y', 'POST'],
    ['/api/messaging/webhooks/cloud-api', 'POST'],
    ['/api/communications/webhooks', 'POST'],
    ['/api/commerce/webhook/storefront-a', 'POST'],
    ['/api/payments/webhook?provider=card', 'POST'],
    ['/api/mcp', 'POST'],
    ['/api/migrate/ingest', 'POST'],
    ['/api/public/forms/acme/contact/submit?utm=1', 'POST'],
    ['/api/webhooks/network?challenge=abc', 'GET'],
  ])('%s (%s): same bytes, method, path, query and signature headers', async (path, method) => {
    const secret = 'provider-secret';
    const signature = hmacSha256Hex(secret, RAW);
    let req =
      method === 'GET'
        ? request(upstream.gateway.app).get(path)
        : request(upstream.gateway.app).post(path);
    req = req
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', `sha256=${signature}`)
      .set('X-Custom-Header', 'Keep Me');
    // A string body goes out as its UTF-8 bytes (superagent would JSON-encode a Buffer).
    const res = method === 'GET' ? await req : await req.send(RAW.toString('utf8'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ echoed: true });
    expect(upstream.echo.received).toHaveLength(1);
    const got = upstream.echo.received[0];
    expect(got.method).toBe(method);
    expect(got.url).toBe(path);
    expect(got.headers['x-hub-signature-256']).toBe(`sha256=${signature}`);
    expect(got.headers['x-custom-header']).toBe('Keep Me');
    if (method === 'POST') {
      expect(got.body.equals(RAW)).toBe(true);
      // The service can verify the provider's signature over what it received.
      expect(hmacSha256Hex(secret, got.body)).toBe(signature);
    }
    expect(got.headers['x-forwarded-for']).toMatch(/127\.0\.0\.1/);
    expect(got.headers['x-forwarded-proto']).toBe('http');
    expect(got.headers['x-forwarded-host']).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('passes a body larger than the gateway JSON limit through to the service (the service decides)', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 'a');
    const res = await request(upstream.gateway.app)
      .post('/api/migrate/ingest')
      .set('content-type', 'application/octet-stream')
      .send(big);
    expect(res.status).toBe(200);
    expect(upstream.echo.received[0].body.length).toBe(big.length);
  });
});

describe('a service that is down or hangs', () => {
  it('a refused connection -> 503 SERVICE_UNAVAILABLE envelope', async () => {
    const port = await freePortForTests();
    const down = testGateway({ ...upstreamsAt(`http://127.0.0.1:${port}`) });
    try {
      const res = await request(down.app).post('/api/webhooks/billing').send({ a: 1 });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'Service unavailable',
        code: 'SERVICE_UNAVAILABLE',
        message: 'The webhook-ingest service is unavailable; try again shortly',
        details: null,
      });
    } finally {
      await down.close();
    }
  });

  it('a service that accepts but never answers -> 503 after the configured timeout, not a hang', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer(() => undefined);
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const hanging = testGateway({
      ...upstreamsAt(`http://127.0.0.1:${port}`),
      UPSTREAM_TIMEOUT_MS: '300',
    });
    try {
      const res = await request(hanging.app).post('/api/mcp').send({ jsonrpc: '2.0' });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await hanging.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
