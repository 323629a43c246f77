import { trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * One JSON log line per request with request id, tenant id and trace id. Bodies are never
 * logged; credential headers are redacted by the logger itself (see logger/).
 */
export function httpLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => req.id,
    customProps: (req) => ({
      requestId: req.id,
      tenantId: req.identity?.tenantId,
      traceId: trace.getActiveSpan()?.spanContext().traceId,
    }),
    autoLogging: { ignore: (req) => req.url === '/health' },
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
        method: req.method,
        url: req.url,
        headers: req.headers,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
