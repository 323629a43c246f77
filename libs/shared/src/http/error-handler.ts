import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { failureBody } from './envelope';
import { AppError, errors } from './errors';
import { databaseErrorToAppError } from './database-errors';

/** Unknown route -> 404 `NOT_FOUND` in the failure envelope. */
export function notFoundHandler(): RequestHandler {
  return (req, _res, next) => {
    next(errors.notFound(`No route for ${req.method} ${req.path}`));
  };
}

/** body-parser (express.json/raw/urlencoded) tags its errors with a `type`. */
interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return (
    typeof err === 'object' && err !== null && typeof (err as BodyParserError).type === 'string'
  );
}

function fromBodyParser(err: BodyParserError): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return errors.invalidJson('Request body is not valid JSON');
    case 'entity.too.large':
      return errors.payloadTooLarge(
        `Request body exceeds the limit of ${err.limit ?? 'the configured'} bytes`,
        { limit: err.limit ?? null },
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errors.unsupportedMediaType('Unsupported content encoding or charset');
    case 'parameters.too.many':
      return errors.payloadTooLarge('Too many parameters in the request body');
    case 'request.aborted':
    case 'request.size.invalid':
      return errors.invalidRequest('Invalid request', 'The request body was incomplete');
    default:
      return undefined;
  }
}

/** Maps anything thrown to an AppError; what is not one of ours becomes a 500 without details. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) {
    return errors.validation('Validation failed', {
      issues: err.issues.map((i) => ({
        path: i.path.map(String).join('.'),
        message: i.message,
        code: i.code,
      })),
    });
  }
  if (isBodyParserError(err)) {
    const mapped = fromBodyParser(err);
    if (mapped) return mapped;
  }
  return databaseErrorToAppError(err) ?? errors.internal('An unexpected error occurred');
}

/**
 * The one error middleware of every service: renders the failure envelope, never a stack or a
 * driver message. Server-side failures are logged with the request id so they can be found.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    const log = {
      err,
      requestId: req.id,
      method: req.method,
      path: req.path,
      status: appError.status,
    };
    if (appError.status >= 500) logger.error(log, 'request failed');
    else logger.debug(log, 'request rejected');
    if (res.headersSent) {
      // Too late for an envelope: end the response so the client is not left hanging.
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.status(appError.status).json(failureBody(appError));
  };
}
