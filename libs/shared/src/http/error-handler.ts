import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { failureBody } from './response-envelope';
import { AppError, errors } from '../errors';
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

/** http-errors shape (express router, body-parser): a status and whether it is the client's fault. */
interface HttpError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
}

/**
 * A 4xx raised by express itself or its parsers (an undecodable `%` in a path parameter, a
 * body whose content-encoding does not decode, ...) is the client's mistake: answer 4xx, not
 * 500. Only errors marked as client errors count (`expose`, or the router's URIError), so a
 * library error that merely carries a `status` of some upstream call stays a 500.
 */
function fromClientHttpError(err: unknown): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, statusCode, expose } = err as HttpError;
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || code < 400 || code > 499) return undefined;
  if (expose !== true && !(err instanceof URIError)) return undefined;
  switch (code) {
    case 401:
      return errors.unauthorized();
    case 403:
      return errors.forbidden();
    case 404:
      return errors.notFound();
    case 413:
      return errors.payloadTooLarge('Request body is too large');
    case 415:
      return errors.unsupportedMediaType('Unsupported content type or encoding');
    default:
      return errors.invalidRequest('Invalid request', 'The request could not be understood');
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
  return (
    fromClientHttpError(err) ??
    databaseErrorToAppError(err) ??
    errors.internal('An unexpected error occurred')
  );
}

/**
 * body-parser hangs the raw request body on its errors (`body`); logs never carry a body
 * (it may hold a password in a half-typed JSON login), so that one field is dropped.
 */
function loggableError(err: unknown): unknown {
  if (!(err instanceof Error) || !('body' in err)) return err;
  const { body: _body, ...fields } = err as Error & Record<string, unknown>;
  return { type: err.name, ...fields, message: err.message, stack: err.stack };
}

/**
 * The one error middleware of every service: renders the failure envelope, never a stack or a
 * driver message. Server-side failures are logged with the request id so they can be found.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    const log = {
      err: loggableError(err),
      request_id: req.id,
      method: req.method,
      path: req.path,
      status: appError.status,
    };
    if (appError.status >= 500) logger.error(log, 'request failed');
    else logger.debug(log, 'request rejected');
    if (res.headersSent) {
      // Too late for an envelope: break the response off, so the client neither hangs nor
      // takes a cut-off body for a complete one.
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.status(appError.status).json(failureBody(appError));
  };
}
