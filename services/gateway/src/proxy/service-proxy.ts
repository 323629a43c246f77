import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  errors,
  failureBody,
  REQUEST_ID_HEADER,
  requestIdOf,
  requestLogger,
} from '@crm/shared/http';
import { IDENTITY_HEADER, signIdentity } from '@crm/shared/identity';
import type { RequestHandler } from 'express';
import {
  createProxyMiddleware,
  debugProxyErrorsPlugin,
  proxyEventsPlugin,
} from 'http-proxy-middleware';
import type { Logger } from 'pino';

export interface ServiceProxyOptions {
  target: string;
  service: string;
  internalTokenSecret: string;
  connectTimeoutMs: number;
  timeoutMs: number;
  logger: Logger;
}

// Keep-alive connections to the services; they keep theirs open longer (65 s) than we reuse ours.
const agent = new Agent({
  keepAlive: true,
  keepAliveMsecs: 1000,
  maxSockets: 256,
  timeout: 60_000,
});

function answerUnavailable(res: ServerResponse | Socket, service: string): void {
  if (!('setHeader' in res)) {
    res.destroy();
    return;
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(
    failureBody(
      errors.serviceUnavailable(`The ${service} service is unavailable; try again shortly`),
    ),
  );
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Forwards a request to one service with its method, path, query, headers and body bytes
 * untouched (nothing upstream of this parses the body), adding x-forwarded-*, the request id
 * and, on Session routes, the signed identity header. A client's own identity header is always
 * dropped. A service that does not connect or answer in time gets the caller a 503 envelope.
 */
export function serviceProxy(options: ServiceProxyOptions): RequestHandler {
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: options.target,
    xfwd: true,
    agent,
    proxyTimeout: options.timeoutMs,
    // The default plugins without the logger: for every response it built a URL (walking the
    // agent's sockets for the port) and a message for a logger that discards it; the gateway
    // logs each request itself (http-logger.ts) and a proxy failure below.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      // http-proxy emits this from the request's 'socket' event (and never when the request
      // carries `Expect`): the request exists and has its socket. No header is touched here: by
      // then the body may already have been piped and the headers sent, and setting one throws
      // inside an event handler, which crashed the gateway under load (found by the soak).
      proxyReq: (proxyReq: ClientRequest) => {
        const socket = proxyReq.socket;
        if (!socket?.connecting) return;
        const timer = setTimeout(
          () => proxyReq.destroy(new Error(`connect timeout after ${options.connectTimeoutMs} ms`)),
          options.connectTimeoutMs,
        );
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      },
      proxyRes: (proxyRes: IncomingMessage, _req: IncomingMessage, res: ServerResponse) => {
        // A service that breaks its response off mid-body (e.g. an export whose database
        // connection died) must break the caller's off too: the pipe alone would leave it open
        // for good, and ending it would pass a cut-off file as complete.
        proxyRes.once('close', () => {
          if (!proxyRes.complete) res.destroy();
        });
      },
      error: (err, req, res) => {
        requestLogger(options.logger, req as IncomingMessage).warn(
          { err, service: options.service },
          'service unavailable',
        );
        answerUnavailable(res as ServerResponse | Socket, options.service);
      },
    },
  }) as unknown as RequestHandler;
  // The forwarded headers are set on the incoming request, which http-proxy copies when it
  // creates the upstream request: before anything is sent, whatever the timing or `Expect`.
  return (req, res, next) => {
    delete req.headers[IDENTITY_HEADER];
    if (req.identity) {
      req.headers[IDENTITY_HEADER] = signIdentity(req.identity, options.internalTokenSecret);
    }
    req.headers[REQUEST_ID_HEADER] = requestIdOf(req);
    return proxy(req, res, next);
  };
}
