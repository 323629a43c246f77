import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A local webhook receiver: records every request (method, path, headers, body text) and
 * answers 500 on paths starting with /fail, never on /slow, 302 to /landed on /redirect, an
 * endless 200 body on /endless, and 200 otherwise.
 */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (path.startsWith('/slow')) return; // never answers
      if (path.startsWith('/redirect')) {
        res.writeHead(302, { location: '/landed' }).end();
        return;
      }
      if (path.startsWith('/endless')) {
        // 200, then a body that never ends (until the client hangs up).
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(16 * 1024, 120);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
        return;
      }
      res.writeHead(path.startsWith('/fail') ? 500 : 200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
