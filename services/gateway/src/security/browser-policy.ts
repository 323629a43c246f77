import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Response headers a browser script may read cross-origin beyond the CORS-safelisted ones:
 * the rate-limit state and Retry-After and the request id for support.
 */
export const EXPOSED_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
];

/** Security headers on every gateway response (helmet's defaults suit a JSON API). */
export function securityHeaders(): RequestHandler {
  return helmet();
}

/**
 * CORS: the public form endpoint is open to any origin (without credentials: a form on a
 * customer's site posts to it); everything else allows credentials only for the configured
 * origins, and no other origin at all.
 */
export function corsPolicy(
  allowedOrigins: string[],
  isPublicPath: (path: string) => boolean,
): RequestHandler {
  const open = cors({ origin: '*', credentials: false, exposedHeaders: EXPOSED_HEADERS });
  const allowed = new Set(allowedOrigins);
  const restricted = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    exposedHeaders: EXPOSED_HEADERS,
  });
  return (req, res, next) =>
    isPublicPath(req.path) ? open(req, res, next) : restricted(req, res, next);
}
