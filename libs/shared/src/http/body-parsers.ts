import express, { type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';

declare module 'http' {
  interface IncomingMessage {
    /** The exact bytes of a parsed body, kept so signatures can be verified over them. */
    rawBody?: Buffer;
  }
}

function keepRawBody(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  req.rawBody = buf;
}

/**
 * JSON bodies up to `limitBytes`; malformed JSON -> 400 `INVALID_JSON`, too large -> 413
 * (both rendered by the error middleware). The raw bytes stay on `req.rawBody`.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return express.json({ limit: limitBytes, verify: keepRawBody });
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

/** HTML form bodies (`application/x-www-form-urlencoded`), raw bytes kept. */
export function formBody(limitBytes: number): RequestHandler {
  return express.urlencoded({ limit: limitBytes, extended: false, verify: keepRawBody });
}
