import type { Request } from 'express';

/**
 * The exact bytes of a receiver's request, as read by `rawBody()`. Express 5 leaves `req.body`
 * undefined for a request without a body; that is an empty body here, which no signature
 * matches, so it is rejected like any other unsigned delivery.
 */
export function rawBytes(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}
