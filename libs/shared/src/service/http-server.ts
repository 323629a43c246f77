import { createServer, type Server } from 'node:http';
import type { Express } from 'express';

/** Starts listening; resolves with the server once the port is bound (rejects if it is taken). */
export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    // Longer than the gateway's keep-alive to the services, so the service never closes a
    // socket the gateway is about to reuse.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    // Once close() has been called (listening is false), a connection whose last response
    // just finished is idle: close it at once rather than wait for its keep-alive to expire.
    server.on('request', (_req, res) => {
      res.on('finish', () => {
        if (!server.listening) setImmediate(() => server.closeIdleConnections());
      });
    });
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Graceful stop: no new connections, idle keep-alive sockets closed, in-flight requests allowed
 * to finish; whatever is still open after `timeoutMs` is cut.
 */
export function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
