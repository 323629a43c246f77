import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger';

export const REQUEST_ID_HEADER = 'x-request-id';

// A caller's id is kept only when it is short and plain, so it is safe to log and echo.
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (`req.id`, typed by pino-http, which logs it) and echoes it on
 * every response as `x-request-id`.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.headers[REQUEST_ID_HEADER];
    const id = typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/** The id requestId() gave a request (typed here so callers need not load pino-http's types). */
export function requestIdOf(req: IncomingMessage): string {
  return String((req as IncomingMessage & { id?: unknown }).id ?? '');
}

/**
 * The logger for lines written while handling `req`: each carries the request's `request_id`,
 * like its request log line. Made on demand (a child costs a little), never per request up front.
 */
export function requestLogger(logger: Logger, req: IncomingMessage): Logger {
  return logger.child({ request_id: requestIdOf(req) });
}
