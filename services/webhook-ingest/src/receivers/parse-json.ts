import { unprocessable } from './verification';

/**
 * Parses a verified raw body as JSON. Called only after verification succeeded, so a body
 * that fails here is the sender's processing failure (400), never an unverified write.
 */
export function parseJsonBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw unprocessable('The request body is not valid JSON');
  }
}
