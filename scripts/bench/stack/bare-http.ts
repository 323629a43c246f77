/**
 * The bare HTTP baselines, each run as its own process by the bench (processes.ts):
 *   verifier           an express app that checks the network signature (HMAC-SHA256 of
 *                      `<t>.<body>`, constant-time compare) on the raw body and answers 200;
 *   proxy <port>       a bare http-proxy-middleware hop in front of it.
 * Prints its port on stdout once listening.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

export const BARE_SECRET = 'bench-bare-network-secret';

function verifier(): express.Express {
  const app = express();
  app.post('/api/webhooks/network', express.raw({ type: '*/*', limit: '10mb' }), (req, res) => {
    const header = String(req.headers['x-network-signature'] ?? '');
    const t = /t=(\d+)/.exec(header)?.[1];
    const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
    const body = req.body as Buffer;
    const expected = createHmac('sha256', BARE_SECRET).update(`${t}.`).update(body).digest();
    const given = Buffer.from(v1 ?? '', 'hex');
    if (!t || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.status(401).json({ ok: false });
      return;
    }
    res.json({ ok: true, inserted: 1 });
  });
  return app;
}

function proxy(targetPort: number): express.Express {
  const app = express();
  // Keep-alive to the verifier, as the gateway keeps it to the services: without an agent,
  // http-proxy sends `connection: close` upstream and passes it back, so every client request
  // would cost two new TCP connections and the baseline would be a handicapped one.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  app.use(createProxyMiddleware({ target: `http://127.0.0.1:${targetPort}`, agent }));
  return app;
}

if (require.main === module) {
  const [role, target] = process.argv.slice(2);
  const app = role === 'proxy' ? proxy(Number(target)) : verifier();
  const server = app.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
