import { AppError, errors } from '../errors';

// SQLSTATE classes and Node socket errors that mean "the database is not reachable right now".
const UNAVAILABLE_SQLSTATE = /^(08|53|57P)/;
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
]);

/*
 * node-postgres's own errors when the server went away, which carry no code: the pool could not
 * connect in time, the socket closed under a query, or a query was sent on a client that had
 * already lost its connection (the first request after the database is cut off).
 */
const CONNECTION_LOST =
  /timeout exceeded when trying to connect|Connection terminated|not queryable|Client was closed|timeout expired|Query read timeout/i;

interface DriverError {
  code?: unknown;
  message?: unknown;
}

/**
 * Maps a node-postgres error to the specified envelope codes (DATABASE_ERROR, SERVICE_UNAVAILABLE,
 * ...). The driver's own text (table names, constraint names, values) never reaches the client:
 * only our fixed messages do.
 */
export function databaseErrorToAppError(err: unknown): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as DriverError;
  if (typeof message === 'string' && CONNECTION_LOST.test(message)) {
    return errors.serviceUnavailable('The database is unavailable; try again shortly');
  }
  if (typeof code !== 'string') return undefined;
  if (UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)) {
    return errors.serviceUnavailable('The database is unavailable; try again shortly');
  }
  if (!/^[0-9A-Z]{5}$/.test(code)) return undefined;
  switch (code) {
    case '23505':
      return errors.conflict('A record with the same unique values already exists');
    case '23503':
      return errors.conflict('The write refers to a record that does not exist');
    case '42501':
      // Row-level security refused the row: a write aimed outside the caller's tenant.
      return errors.forbidden('Not permitted for this tenant');
    case '57014':
      return errors.serviceUnavailable('The database query timed out; try again shortly');
    default:
      return errors.database('A database error occurred');
  }
}
