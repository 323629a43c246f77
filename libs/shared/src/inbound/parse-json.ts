import { MAX_JSON_DEPTH, nestsDeeperThan, storableValue } from './storable';
import { unprocessable } from './verification';

/**
 * Parses a verified raw body as JSON, made storable (see storable.ts): every string and key
 * with U+0000 and lone surrogates replaced by U+FFFD, so whatever a receiver stores from it
 * (text columns, or jsonb via JSON.stringify) cannot fail the INSERT. Called only after
 * verification succeeded, so a body refused here is the sender's processing failure (400),
 * never an unverified write:
 *  - not JSON: 400 `The request body is not valid JSON`;
 *  - nested deeper than MAX_JSON_DEPTH: 400, before anything recursive touches it.
 */
export function parseJsonBody(rawBody: Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw unprocessable('The request body is not valid JSON');
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
    throw unprocessable(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return storableValue(parsed);
}
