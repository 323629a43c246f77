import { trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
// Types only: pino-http's declaration of `req.id` (set by requestId()); its middleware is not used.
import type {} from 'pino-http';

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

type LogLevel = 'info' | 'warn' | 'error';

/**
 * One JSON log line per request with request id, tenant id and trace id. Bodies are never
 * logged; credential headers are redacted by the logger itself (see logger/).
 *
 * The line has the fields pino-http wrote (`req` {method, url, headers}, `res` {statusCode},
 * `responseTime`, `request_id`, `trace_id` (as every line logged in a span), `tenantId`, `err` on failures; messages `request
 * completed` / `request aborted` / `request errored`), but no child logger is built per request:
 * the process's one logger (one redaction setup) writes the line when the response is done, and
 * nothing is built at all when the line's level is off (e.g. `LOG_LEVEL=warn` and a 2xx).
 */
export function httpLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // Probes (every few seconds from the orchestrator) are not worth a line each.
    if (req.url === '/health' || req.url === '/ready') {
      next();
      return;
    }
    const started = Date.now();
    const traceId = trace.getActiveSpan()?.spanContext().traceId;
    let done = false;
    const onDone = (err?: unknown) => {
      if (done) return;
      done = true;
      res.removeListener('close', onDone);
      res.removeListener('finish', onDone);
      res.removeListener('error', onDone);
      const failed = err !== undefined || res.statusCode >= 500;
      const level: LogLevel = failed ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line: Record<string, unknown> = {
        request_id: req.id,
        trace_id: traceId,
        req: {
          method: req.method,
          url: redactUrl(req.originalUrl ?? req.url),
          headers: req.headers,
        },
        res: { statusCode: res.statusCode },
        responseTime: Date.now() - started,
        tenantId: req.identity?.tenantId,
      };
      if (failed) {
        line.err = err ?? new Error(`failed with status code ${res.statusCode}`);
        logger[level](line, 'request errored');
        return;
      }
      logger[level](
        line,
        !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted',
      );
    };
    res.on('close', onDone);
    res.on('finish', onDone);
    res.on('error', onDone);
    next();
  };
}
