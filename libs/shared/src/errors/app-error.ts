/**
 * Typed errors, one per status and envelope code: the specified ones (400 INVALID_REQUEST to
 * 503 SERVICE_UNAVAILABLE) and our 413 and 415. Throw them anywhere in a request; the error
 * middleware renders the failure envelope `{ success: false, error, code, message, details }`.
 *
 * `error` is the short text callers branch on (some are specified: `Unauthorized`,
 * `No active tenant membership`); `message` is a human sentence; `details` carries structure
 * (validation issues, `retryAfter`).
 */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'TENANT_ACCESS_DENIED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'ALREADY_EXISTS'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'INTERNAL_ERROR'
  | 'DATABASE_ERROR'
  | 'SERVICE_UNAVAILABLE'
  | 'AI_NOT_CONFIGURED';

export interface AppErrorInit {
  status: number;
  code: ErrorCode;
  error: string;
  message?: string;
  details?: unknown;
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly error: string;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(init: AppErrorInit) {
    super(init.message ?? init.error);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.error = init.error;
    this.details = init.details ?? null;
    this.headers = init.headers ?? {};
  }
}

type Shortcut = (message?: string, details?: unknown) => AppError;

function kind(status: number, code: ErrorCode, error: string): Shortcut {
  return (message, details) => new AppError({ status, code, error, message, details });
}

/** `throw errors.notFound('Deal not found')` reads better than a constructor with five fields. */
export const errors = {
  invalidRequest: (error: string, message?: string, details?: unknown) =>
    new AppError({ status: 400, code: 'INVALID_REQUEST', error, message, details }),
  validation: kind(400, 'VALIDATION_ERROR', 'Validation failed'),
  invalidJson: kind(400, 'INVALID_JSON', 'Invalid JSON'),
  /** Specified: no session on a Session route -> 401, `error` = `Unauthorized`. */
  unauthorized: kind(401, 'UNAUTHORIZED', 'Unauthorized'),
  forbidden: kind(403, 'FORBIDDEN', 'Forbidden'),
  /** Specified: signed in without an active membership -> 403 `No active tenant membership`. */
  noActiveMembership: kind(403, 'TENANT_ACCESS_DENIED', 'No active tenant membership'),
  tenantAccessDenied: kind(403, 'TENANT_ACCESS_DENIED', 'Tenant access denied'),
  notFound: kind(404, 'NOT_FOUND', 'Not found'),
  conflict: kind(409, 'CONFLICT', 'Conflict'),
  alreadyExists: kind(409, 'ALREADY_EXISTS', 'Already exists'),
  payloadTooLarge: kind(413, 'PAYLOAD_TOO_LARGE', 'Payload too large'),
  unsupportedMediaType: kind(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError({
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      error: 'Too many requests',
      message: `Rate limit exceeded; retry after ${retryAfterSeconds} seconds`,
      details: { retryAfter: retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  internal: kind(500, 'INTERNAL_ERROR', 'Internal server error'),
  database: kind(500, 'DATABASE_ERROR', 'Database error'),
  serviceUnavailable: kind(503, 'SERVICE_UNAVAILABLE', 'Service unavailable'),
  aiNotConfigured: kind(503, 'AI_NOT_CONFIGURED', 'AI provider not configured'),
};
