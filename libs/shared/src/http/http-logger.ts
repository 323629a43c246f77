import { trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

// Query parameters that carry credentials (e.g. the messaging handshake's `hub.verify_token`,
// OAuth `code`s, `?api_key=`): their values never reach a log line.
const SECRET_QUERY_PARAM = /token|secret|password|passwd|signature|sig$|key|code|auth|session/i;

/** The request URL as logged: path and query, with credential-like query values replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Undecodable name: judge it as written.
      }
      return SECRET_QUERY_PARAM.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/**
 * One JSON log line per request with request id, tenant id and trace id. Bodies are never
 * logged; credential headers are redacted by the logger itself (see logger/).
 */
export function httpLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => req.id,
    // customProps are bound when the request starts and re-bound at the end when they changed,
    // which repeats every key (a JSON line with `requestId` twice). So they hold only what is
    // known from the start; the tenant, known once requireIdentity() ran, joins the end line.
    customProps: (req) => ({
      requestId: req.id,
      traceId: trace.getActiveSpan()?.spanContext().traceId,
    }),
    customSuccessObject: (req, _res, value: object) => ({
      ...value,
      tenantId: req.identity?.tenantId,
    }),
    customErrorObject: (req, _res, _err, value: object) => ({
      ...value,
      tenantId: req.identity?.tenantId,
    }),
    autoLogging: { ignore: (req) => req.url === '/health' },
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
        method: req.method,
        url: redactUrl(req.url),
        headers: req.headers,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
