import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { TrustProxy } from '../config/trust-proxy';
import { jsonBody } from './body-parsers';
import { errorHandler, notFoundHandler } from './error-handler';
import {
  healthHandler,
  readinessHandler,
  type HealthOptions,
  type ReadinessOptions,
} from './health';
import { refuseHostileQuery } from './hostile-input-guard';
import { httpLogger } from './http-logger';
import { requestId } from './request-id';

export interface ServiceAppOptions {
  logger: Logger;
  health: HealthOptions;
  /**
   * What `GET /ready` checks besides the database of `health`: the event bus and whether the
   * process is draining (both optional; unset, /ready follows the database alone).
   */
  readiness?: Pick<ReadinessOptions, 'bus' | 'isDraining'>;
  /** Largest JSON body parsed, in bytes; larger -> 413. */
  bodyLimitBytes: number;
  /** Mounts the service's own routes; runs after the common middleware, before the 404. */
  routes?: (app: Express) => void;
  /**
   * Parse JSON bodies for every route (default). Services whose routes need the raw bytes
   * before any parsing (or other content types) turn it off and parse per route.
   */
  parseJson?: boolean;
  /**
   * The proxies whose X-Forwarded-For/-Proto/-Host the app believes (`req.ip`, `req.secure`,
   * `req.protocol`, `req.hostname`); default none. Trusting a peer that is not a proxy lets any
   * client that reaches it choose its own address (and so escape per-IP limits).
   */
  trustProxy?: TrustProxy;
}

/**
 * The common frame of every service's express app: request id, request log, the query-string
 * guard (hostile-input-guard.ts), internal `GET /health` (liveness) and `GET /ready` (readiness: the
 * database answers, the bus is connected, not shutting down), JSON bodies, the service's
 * routes, then 404 and the one error middleware.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Explicit, never a default range: the backends behind the gateway read none of req.ip,
  // req.secure, req.protocol or req.hostname (the telephony signature covers PUBLIC_BASE_URL,
  // not the forwarded host), so they trust no one; the gateway passes its TRUST_PROXY.
  app.set('trust proxy', options.trustProxy ?? false);
  app.use(requestId());
  app.use(httpLogger(options.logger));
  app.use(refuseHostileQuery());
  app.get('/health', healthHandler(options.health));
  app.get(
    '/ready',
    readinessHandler({
      checkDatabase: options.health.checkDatabase,
      databaseTimeoutMs: options.health.databaseTimeoutMs,
      ...options.readiness,
    }),
  );
  if (options.parseJson !== false) app.use(jsonBody(options.bodyLimitBytes));
  options.routes?.(app);
  app.use(notFoundHandler());
  app.use(errorHandler(options.logger));
  return app;
}
