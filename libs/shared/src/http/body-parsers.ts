import express, { type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { findHostileInput, hostileInputError, MAX_JSON_DEPTH } from './hostile-input-guard';

declare module 'http' {
  interface IncomingMessage {
    /** The exact bytes of a parsed body, kept so signatures can be verified over them. */
    rawBody?: Buffer;
  }
}

function keepRawBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  req.rawBody = buf;
}

// Bodies already checked (a route may put jsonBody() and formBody() behind an app-wide one).
const checkedBodies = new WeakSet<object>();

/**
 * Runs `parse`, then refuses a parsed body holding U+0000, an unpaired surrogate (in a value
 * or a key) or nesting deeper than MAX_JSON_DEPTH: 400 `VALIDATION_ERROR` naming the first
 * such field (hostile-input-guard.ts), before any route code, zod or the database touches it.
 */
function refusingHostileInput(parse: RequestHandler): RequestHandler {
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const body: unknown = req.body;
      if (body === null || typeof body !== 'object' || checkedBodies.has(body)) return next();
      const issue = findHostileInput(body, MAX_JSON_DEPTH);
      if (issue) return next(hostileInputError(issue, 'request body'));
      checkedBodies.add(body);
      next();
    });
  };
}

/**
 * JSON bodies up to `limitBytes`; malformed JSON -> 400 `INVALID_JSON`, too large -> 413
 * (both rendered by the error middleware); U+0000, unpaired surrogates and nesting deeper
 * than MAX_JSON_DEPTH -> 400 `VALIDATION_ERROR` naming the field. The raw bytes stay on
 * `req.rawBody`.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return refusingHostileInput(express.json({ limit: limitBytes, verify: keepRawBody }));
}

/**
 * Raw bodies as a Buffer on `req.body` (and `req.rawBody`): by default every body, with any
 * content type or none, so a signature can be checked over exactly the bytes sent.
 */
export function rawBody(
  limitBytes: number,
  type: string | string[] | ((req: IncomingMessage) => boolean) = () => true,
): RequestHandler {
  return express.raw({ limit: limitBytes, type, verify: keepRawBody });
}

/**
 * HTML form bodies (`application/x-www-form-urlencoded`), raw bytes kept; a `%00` in a name or
 * value -> 400 `VALIDATION_ERROR`, as for JSON.
 */
export function formBody(limitBytes: number): RequestHandler {
  return refusingHostileInput(
    express.urlencoded({ limit: limitBytes, extended: false, verify: keepRawBody }),
  );
}
